"""The message catalog: every message in both languages, with the same parameters."""

import re

import pytest

from bot.messages import LANGUAGES, MessageError, catalog, parameters, say


def test_every_message_has_english_and_chinese_with_the_same_parameters():
    messages = catalog()
    assert len(messages) > 40
    for message_id, templates in messages.items():
        assert set(templates) == set(LANGUAGES), message_id
        assert templates["en"].strip() and templates["zh"].strip(), message_id
        assert parameters(templates["en"]) == parameters(templates["zh"]), message_id


# Lowercase words a Chinese answer may keep: commands, tools and terms engineers write in English.
_ENGLISH_TERMS = {"dmon", "busbw", "algbw", "fsdp", "zero", "nccl", "pinned", "burn", "sglang", "vllm", "checkpoint",
                  "spot", "cuda", "torch", "pytorch", "wheel", "driver", "nvlink", "nvswitch", "infiniband", "roce",
                  "mlperf", "aiperf", "offline", "server", "singlestream", "lora", "qlora", "bf16", "fp8", "gemm",
                  "token", "tokens"}


def test_chinese_templates_carry_no_english_sentences():
    for message_id, templates in catalog().items():
        text = re.sub(r"`[^`]*`|\{[^}]*\}", " ", templates["zh"])  # commands and parameters stay as they are
        # product names are capitalised (Cherry Servers, AutoDL); an English sentence is lowercase words
        words = set(re.findall(r"(?<![A-Za-z])[a-z]{4,}(?![A-Za-z])", text)) - _ENGLISH_TERMS
        assert len(words) <= 2, (message_id, sorted(words))


def test_say_formats_in_the_language_asked_and_english_for_any_other():
    assert say("fit.part_weights", "zh", gb="14") == "权重 14 GB"
    assert say("fit.part_weights", "en", gb="14") == "weights 14 GB"
    assert say("fit.part_weights", "fr", gb="14") == "weights 14 GB"


def test_an_unknown_id_or_a_missing_parameter_is_an_error():
    with pytest.raises(MessageError, match="unknown message id 'fit.nope'"):
        say("fit.nope", "en")
    with pytest.raises(KeyError):
        say("fit.part_weights", "en")


def test_parameters_of_a_template():
    assert parameters("{a} and {b:,.0f} of {c[0]}") == {"a", "b", "c"}


def test_a_message_id_defined_twice_in_one_file_is_refused():
    from bot.messages import _refuse_repeated_ids

    _refuse_repeated_ids("ok.yaml", b"a:\n  en: x\n  zh: y\nb:\n  en: x\n  zh: y\n")
    with pytest.raises(MessageError, match=r"twice.yaml:4: message id 'a' is already defined at line 1"):
        _refuse_repeated_ids("twice.yaml", b"a:\n  en: x\n  zh: y\na:\n  en: z\n  zh: w\n")
