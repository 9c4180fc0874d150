"""A sign-off asked on an idle nvidia-smi table quoted in prose: fine at idle, but no sign-off before the
load tests (the acceptance list follows); a table under load is not called idle."""

from __future__ import annotations

import pytest

from tests.compose.answering import answer_of


@pytest.mark.parametrize("text, said, word", [
    ('新到一台 8 卡 H100 服务器，nvidia-smi 贴出来是：Driver 550.90.07，CUDA 12.4，8 张都是 "NVIDIA H100 80GB HBM3  On"，'
     "72W / 700W，1MiB / 81559MiB，ECC 0，MIG Disabled。这样能签收吗？还要测啥", "72/700 W，已用 1/81,559 MiB", "还不能只凭这张表签收"),
    ("租的 4 卡 A100 到了，nvidia-smi 显示 55W / 400W，4MiB / 81920MiB，可以签收了吗", "55/400 W", "还不能只凭这张表签收"),
    ('new 8x H100 box arrived. nvidia-smi shows all 8 "NVIDIA H100 80GB HBM3", 65W / 700W, 0MiB / 81559MiB, ECC 0, '
     "persistence On. good to sign?", "65 of 700 W, 0 of 81,559 MiB used", "Not on this table alone"),
])
def test_an_idle_table_is_not_a_sign_off_and_the_load_tests_follow(advisor, text, said, word):
    answer = answer_of(advisor, text)
    first = answer.answers[0]
    assert first.kind == "checklist"
    assert first.lead.startswith(word) and said in first.lead
    assert not first.lead.startswith(("可以", "Yes"))
    listed = "\n".join(first.details)
    assert "dcgmi diag" in listed and "all_reduce_perf" in listed and "nvlink -s" in listed


def test_a_table_under_load_is_not_called_idle(advisor):
    answer = answer_of(advisor, "H100 under load shows 690W / 700W, 70000MiB / 81559MiB, can we sign off?")
    assert answer.answers and not answer.answers[0].lead.startswith("Not on this table alone")
