""""Thermal?" / "降频" on pasted clock event reasons is answered from the readings first (not thermal: the
temperature and both thermal reasons Not Active), a signal every GPU shows is the chassis', and a `-q`
excerpt whose section headers were cut still reads its temperature and power (bot.diagnostics.smi)."""

from __future__ import annotations

from tests.compose.answering import answer_of

_BRAKE = """    Clocks Event Reasons
        Idle                              : Not Active
        SW Power Cap                      : Not Active
        HW Slowdown                       : Active
            HW Thermal Slowdown           : Not Active
            HW Power Brake Slowdown       : Active
        SW Thermal Slowdown               : Not Active
"""

_CAP = """    Clocks Event Reasons
        SW Power Cap                      : Active
        HW Slowdown                       : Not Active
        SW Thermal Slowdown               : Not Active
    GPU Current Temp                      : 71 C
    Power Draw                            : 440.10 W
    Current Power Limit                   : 450.00 W
"""


def test_a_power_brake_on_every_gpu_is_not_thermal_and_the_chassis(advisor):
    reply = answer_of(advisor, "all 8 cards show this at 31 C:\n" + _BRAKE + "overheating?").answers[0]
    assert reply.lead.startswith("Not thermal: 31 °C")
    assert reply.details[0].startswith("You say all 8 GPUs show the same")


def test_a_chinese_throttling_complaint_on_a_power_cap_says_not_thermal_with_the_temperature(advisor):
    reply = answer_of(advisor, "用户说我们的 4090 降频了，发来：\n" + _CAP + "卡有问题吗？").answers[0]
    assert "不是过热：温度 71 °C" in reply.lead and reply.lead.startswith("没有问题")
    assert "功耗 440/450 W" in " ".join([reply.lead, *reply.details])


def test_a_thermal_slowdown_gets_no_not_thermal_line(advisor):
    hot = _CAP.replace("SW Thermal Slowdown               : Not Active", "SW Thermal Slowdown               : Active")
    reply = answer_of(advisor, "is it throttling from heat?\n" + hot).answers[0]
    assert "Not thermal" not in reply.lead
