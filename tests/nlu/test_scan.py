"""bot.nlu.scan: folding, the catalog's name tables and the Scan extractors write to."""

import pytest

from bot.knowledge import default_catalog
from bot.nlu import parse
from bot.nlu.scan import NameTable, Scan, fold, lexicon_for


def test_fold_keeps_the_length_so_spans_index_the_original():
    text = "两张３０９０跑７Ｂ推理 ＧＰＵ"
    assert fold(text) == "两张3090跑7b推理 gpu" and len(fold(text)) == len(text)


def test_a_name_table_matches_the_ways_people_write_a_name():
    table = NameTable.build({"Llama 3 70B": "llama-3-70b", "A100 80GB": "a100-80gb"}, plural=True)
    for written in ["llama3-70b", "llama_3_70b", "llama-3 70b"]:
        assert table.lookup(table.pattern.search(written).group(0)) == "llama-3-70b"
    assert table.lookup(table.pattern.search("two a100 80g's").group(0), plural=True) == "a100-80gb"
    assert table.pattern.search("xa100 80gb") is None  # a name is a word of its own


def test_the_lexicon_is_built_once_per_catalog():
    catalog = default_catalog()
    assert lexicon_for(catalog) is lexicon_for(catalog)
    assert lexicon_for(catalog).gpus.lookup("h100") == "h100"


def test_a_repeated_slot_keeps_the_first_value_and_reports_the_second_by_kind():
    scan = Scan.of("H100 then A100", lexicon_for(default_catalog()))
    assert scan.set("gpu", "h100", 0, 4) and not scan.set("gpu", "a100", 10, 14)
    assert scan.fields["gpu"] == "h100"
    [repeat] = scan.ignored
    assert (repeat.kind, repeat.text) == ("repeated", "A100")
    assert not scan.free(10, 14) and scan.free(4, 10)
    assert list(scan.matches(scan.lex.gpus.pattern)) == []  # both names are claimed now


def test_the_kind_stays_out_of_the_json():
    scan = Scan.of("H800", lexicon_for(default_catalog()))
    scan.ignore("gpu", "H800", 0, 4, note="GPU not in the catalog", kind="unknown-gpu")
    assert "kind" not in scan.ignored[0].model_dump()


def test_the_english_article_before_a_number_is_no_gpu_name():
    catalog = default_catalog()
    for written, gpu in [("a 10-day run on 32 H100s", "h100"), ("a 100 GB disk on an A10", "a10"),
                         ("a 10 day job", None)]:
        assert parse(written, catalog).requirement.gpu == gpu, written
    for written, gpu in [("A10 or L4?", "a10"), ("two a-100 cards", "a100"), ("H 100 nodes", "h100")]:
        assert parse(written, catalog).requirement.gpu == gpu, written


@pytest.mark.parametrize("text, gpu", [
    ("do the 48GB modded 4090s need a special driver?", "rtx-4090-48gb"),
    ("48GB 4090 vs A6000 for inference", "rtx-4090-48gb"),
    ("is an 8x 4090 box ok?", "rtx-4090"),  # no memory said: the stock card
])
def test_a_card_named_with_its_memory_first_is_that_variant(text, gpu):
    assert parse(text).requirement.gpu == gpu
