"""The bot side of host checks: inventory, signed agent client, audit, judging, fleet checks."""
