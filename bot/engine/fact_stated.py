"""What the user stated among their numbers (bot.nlu.quantities), on the requirement fact: a follow-up
question never asks what was given ("checkpoint takes 5 min", "平均 6 小时被回收一次", "we have 2 weeks")."""

from __future__ import annotations

from pydantic import BaseModel, Field


class StatedNumbers(BaseModel):
    """Mixed into `bot.engine.fact_kinds.RequirementFact`; filled by `bot.facts.requirement_fact`."""

    stated_save_minutes: float | None = Field(default=None, description="minutes one checkpoint takes to write, as stated")
    stated_interruptions: bool = Field(default=False, description="the user said how often the job is interrupted")
    stated_restart_minutes: float | None = Field(default=None, description="minutes to resume after an interruption, as stated")
    stated_time_frame: bool = Field(default=False, description="the user gave a deadline or a duration for the job")
