"""bot.nlu.slots.instances: instance types, their provider, GPU and count."""

from bot.nlu import parse


def test_a_known_instance_type_is_its_gpu_and_count_and_a_second_is_compared():
    slots = parse("p4d.24xlarge vs p5.48xlarge for llama 70b").extracted
    assert (slots["instance"], slots["provider"], slots["gpu"], slots["gpu_count"]) == (
        "p4d.24xlarge", "aws", "a100-40gb-sxm", 8)
    assert slots["instance_options"] == ["p5.48xlarge"]
    assert slots["gpu_options"] == ["a100-40gb-sxm", "h100-sxm"]


def test_an_aliyun_instance_names_its_provider():
    slots = parse("ecs.gn7i-c8g1.2xlarge 跑推理").extracted
    assert (slots["provider"], slots["instance"]) == ("aliyun", "ecs.gn7i-c8g1.2xlarge")


def test_a_family_stands_for_its_largest_size():
    slots = parse("how much are p5 instances").extracted
    assert (slots["instance"], slots["gpu"]) == ("p5.48xlarge", "h100-sxm")


def test_a_bare_family_asked_for_its_price_is_its_largest_size():
    from bot.nlu import parse
    for text in ("how much is a p4d on demand in us-east-1?", "AWS p4d 按需多少钱一小时？"):
        req = parse(text).requirement
        assert req.instance == "p4d.24xlarge" and req.gpu == "a100-40gb-sxm"
    assert parse("we run p4d for training").requirement.instance is None  # no price asked of it: a word


def test_a_google_cloud_machine_type_is_an_instance_with_its_gpus():
    from bot.nlu import parse
    req = parse("a3-highgpu-8g price in us-central1?").requirement
    assert req.instance == "a3-highgpu-8g" and req.provider == "gcp" and req.gpu == "h100-sxm" and req.gpu_count == 8
    assert req.asks[0].kind == "price"


def test_a_bare_alibaba_family_is_its_gpu_at_its_smallest_size():
    for text in ("租阿里云 gn8is 跑 14B 推理够不够？", "is an ebmgn7i enough for a 13B chatbot?"):
        req = parse(text).requirement
        assert req.provider == "aliyun" and req.instance is not None
        assert req.gpu == ("l20" if "gn8is" in text else "a10")
    one = parse("租阿里云 gn8is 跑 14B 推理够不够？").requirement
    assert one.gpu_count is None  # the family's sizes run 1 to 8 GPUs: the job decides, not its largest
    assert one.instance in {i.name for i in _aliyun("gn8is") if i.count == 1}
    # a full type keeps its own size; a name that only looks like a family is no instance
    assert parse("ecs.gn7i-c8g1.2xlarge 跑推理").extracted["instance"] == "ecs.gn7i-c8g1.2xlarge"
    assert parse("gn99x for inference?").requirement.instance is None


def test_a_second_alibaba_family_is_compared_with_the_first():
    slots = parse("ebmgn7e vs gn8v for serving a 70B model").extracted
    assert slots["instance"].startswith("ecs.ebmgn7e") and slots["instance_options"][0].startswith("ecs.gn8v")
    assert slots["gpu_options"] == ["a100-80gb-sxm", "h20-96gb"]


def _aliyun(family):
    from bot.knowledge import DEFAULT_KNOWLEDGE_DIR, load_catalog
    return [i for i in load_catalog(DEFAULT_KNOWLEDGE_DIR).instances.values()
            if i.provider == "aliyun" and i.family == family]


def test_a_count_of_instances_is_their_gpus_together():
    # "4x g6e.48xlarge" is four instances of 8 L40S each: 32 GPUs on four nodes, not one instance's 8
    cases = [("can we full-finetune a 34B on 4x g6e.48xlarge (8x L40S each = 32 gpus)?", "l40s", 32),
             ("two p4d.24xlarge enough to train a 70B with FSDP?", "a100-40gb-sxm", 16),
             ("我们有 4 台 p5.48xlarge，能全参微调 70B 吗？", "h100-sxm", 32),
             ("3 x a3-highgpu-8g 跑 llama 70b 训练够不够", "h100-sxm", 24)]
    for text, gpu, count in cases:
        req = parse(text).requirement
        assert (req.gpu, req.gpu_count) == (gpu, count), text
        assert "cluster" in req.topics, text


def test_one_instance_or_a_price_before_it_stays_that_instance_s_gpus():
    assert parse("p4d.24xlarge vs p5.48xlarge for llama 70b").requirement.gpu_count == 8
    assert parse("is $32.77 p4d.24xlarge a good price?").requirement.gpu_count == 8
    assert parse("1 p5.48xlarge 够跑 70B 推理吗").requirement.gpu_count == 8
