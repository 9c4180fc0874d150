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
