"""bot.nlu.slots.providers: catalog providers, case-sensitive aliases and unknown providers."""

import pytest

from bot.nlu import parse


@pytest.mark.parametrize("text, provider", [("阿里云上跑", "aliyun"), ("Vast.ai pricing", "vast"),
                                            ("renting 3090s on vast", "vast"), ("Cherry servers", "cherry")])
def test_providers_by_name(text, provider):
    assert parse(text).extracted["provider"] == provider


def test_vast_as_an_ordinary_word_is_not_a_provider():
    assert "provider" not in parse("the vast majority of our jobs are inference").extracted
    assert "provider" not in parse("Vast majority of jobs. vast numbers of users").extracted


def test_a_provider_the_catalog_lacks_is_reported_with_its_kind_and_a_notice():
    result = parse("H100 on Azure for inference")
    assert "provider" not in result.extracted
    [azure] = [s for s in result.ignored if s.slot == "provider"]
    assert (azure.text, azure.kind) == ("Azure", "unknown-provider")
    assert any("Azure" in notice for notice in result.notices())


def test_a_second_provider_is_an_option():
    slots = parse("AWS or RunPod").extracted
    assert (slots["provider"], slots["provider_options"]) == ("aws", ["runpod"])


def test_autodl_is_a_known_chinese_gpu_cloud():
    result = parse("在 AutoDL 上租 4090 跑 LoRA")
    assert result.extracted["provider"] == "autodl"
    assert not [s for s in result.ignored if s.slot == "provider"]  # no "I don't know AutoDL" notice


@pytest.mark.parametrize("text", ["can we serve a 7B model from AWS Lambda?", "aws-lambda or runpod for a 7B model",
                                  "our Lambda functions call an 8B model on amazon lambda"])
def test_amazons_lambda_service_is_not_the_lambda_gpu_cloud(text):
    slots = parse(text).extracted
    assert slots.get("provider") != "lambda" and "lambda" not in slots.get("provider_options", [])


def test_the_lambda_gpu_cloud_is_still_a_provider_next_to_aws():
    slots = parse("AWS or Lambda for 8x H100?").extracted
    assert (slots["provider"], slots["provider_options"]) == ("aws", ["lambda"])
    assert parse("lambda H100 price per hour?").extracted["provider"] == "lambda"


@pytest.mark.parametrize("text, options", [
    ("compare cost: aws p5, gcp a3-highgpu-8g, lambda 8x, runpod 8x, vast 8x", ["aws", "lambda", "runpod", "vast"]),
    ("RunPod, vast, or lambda?", ["lambda", "vast"]),
])
def test_a_lower_case_name_in_a_list_of_providers_is_one(text, options):
    assert sorted(parse(text).requirement.provider_options) == sorted(options)


@pytest.mark.parametrize("text", ["we have a vast dataset, 8x H100", "costs, vast amounts of data"])
def test_the_word_vast_is_no_provider(text):
    assert parse(text).requirement.provider is None
