"""The Slack bot: Bolt app, Block Kit cards, and the `serve` command. Slack specifics live only here."""
