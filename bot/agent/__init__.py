"""The host agent: probes and benchmarks a GPU host, served over a signed HTTP API.

`gpu-advisor agent serve` runs it on the GPU host; `bot.dispatch` is the bot-side client.
"""
