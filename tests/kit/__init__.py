"""Test-only stand-ins shared by several test folders and the benches (`tests.kit.local_slack`:
a fake Slack Web API and Socket Mode server). Importable as `tests.kit` because pytest's
`pythonpath` (pyproject.toml) and each bench put the repository root on sys.path."""
