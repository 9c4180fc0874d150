"""The one word-overlap measure: the same thing written two ways reads as the same terms."""

from bot.advice.words import terms


def test_numbers_read_alike_however_they_are_written():
    assert terms("capped at 400.0 W, billed 1,359 a month") == terms("capped at 400 W, billed 1359 a month")
    assert "0" not in terms("400.0") and terms("67.74 W") == terms("68 W")  # a line rounds from 10 up
    assert "2.5" in terms("2.50x faster")


def test_a_log_timestamp_adds_no_terms():
    assert terms("Xid 13 (4x, last 2025-01-21T04:41:44,284616+00:00): engine exception") == \
        terms("Xid 13 (4x): engine exception") | {"last"}


def test_an_id_a_probe_name_and_a_display_name_of_one_card_read_alike():
    assert terms("NVIDIA GeForce RTX 4090 runs hot") == terms("rtx-4090 runs hot") == terms("RTX 4090 runs hot")


def test_chinese_is_read_in_character_pairs_beside_english_words():
    assert terms("显存不足 on L40S") == {"显存", "存不", "不足", "l40s"}
