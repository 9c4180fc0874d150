

def stated(result) -> dict:
    """The slots a question stated, without what it asks (`asks`, read by bot/nlu/slots/asks.py and
    tested on its own): slot tests compare these."""
    return {k: v for k, v in result.extracted.items() if k != "asks"}
