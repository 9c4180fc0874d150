"""What the question asks for: 'how many GPUs do I need', '需要几张卡' -> how-many; 'just got an H100
instance, what should I check first?', '刚租了…先检查什么' -> first-check; 'recommend me a GPU
server', '推荐一台 GPU 服务器' -> recommend."""

from __future__ import annotations

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan
from bot.nlu.slots.asks import HOW_MANY_BARE

_RECOMMEND = lx.rx(
    r"\B<(?:recommend|suggest)\w*\s+(?:me\s+|us\s+)?(?:an?\s+|some\s+|the\s+(?:best\s+)?)?(?:\w+\s+){0,2}"
    r"(?:gpu|server|instance|machine|box|card|setup|config\w*)s?>\E"
    r"|\B<(?:what|which)\s+(?:gpu|server|instance|machine)s?\s+(?:should|do|would|could)\s+(?:i|we|you)\s+(?:rent|buy|get|use|recommend)>\E"
    r"|推荐(?:一下|一台|一款|一个|几台|个)?\s*(?:gpu|显卡|服务器|机器|配置|实例|云服务器)"
    r"|(?:租|买|选)(?:什么|哪种|哪个|哪款)\s*(?:gpu|显卡|服务器|机器|配置|实例)"
    r"|(?:想|要|打算|准备)(?:租|买)(?:一台|台|个|一个|点)?\s*(?:gpu|显卡|服务器|机器|算力)"
    r"|\B<(?:i|we)\s+(?:want|need|would\s+like|plan)\s+to\s+(?:rent|buy)\s+(?:an?\s+|some\s+)?(?:gpu\s+)?(?:server|machine|box|instance|gpus?)>\E"
)
_FIRST_CHECK = lx.rx(
    r"\B<(?:just\s+(?:got|rented|received|bought|launched|spun\s+up)|new(?:ly)?\s+(?:rented\s+)?(?:gpu\s+)?(?:instance|server|machine|box|node|host))>\E"
    r".{0,80}?\B<(?:check|verify|test|look\s+at|validate|inspect)>\E"
    r"|\B<(?:what|which\s+things?)\s+(?:should|do)\s+(?:i|we)\s+(?:check|verify|test)\s+first>\E"
    r"|\B<first\s+(?:checks?|things?\s+to\s+check)>\E"
    r"|\B<how\s+(?:do\s+i|do\s+we|to|can\s+i|can\s+we)\s+(?:check|verify|tell|test)\s+(?:if|whether|that)?\s*(?:my|our|the|a)?\s*(?:rented|new|cloud)\b>\E"
    r"|(?:刚|新)(?:租|买|开|拿到|到手|申请|装)(?:到|好)?了?.{0,60}?(?:检查|验证|核对|先看|测试|确认)"
    r"|(?:到手|交付|上线)(?:了|后)?.{0,30}?(?:先|要|需要)?(?:检查|验证|核对|测试)(?:什么|哪些|啥)"
    r"|(?:先|首先)(?:检查|验证|核对)(?:什么|哪些|啥)"
)
_HOW_MANY = lx.rx(r"\B<how\s+many\s+(?:\w+\s+){0,3}(?:gpus?|cards?|nodes?|h100s?|a100s?|l40s|4090s?)>\E|\B<how\s+many\s+do\s+(?:i|we)\s+need>\E"
                  r"|(?:需要|要|得)?(?:多少|几)\s*(?:张|块|个|台)?\s*(?:卡|gpu|显卡|h100|a100|4090)")
# "on H100s, how many?", "要几张": asked bare, of the GPU the message names
_HOW_MANY_BARE = lx.rx(HOW_MANY_BARE + r"|(?:需要|要|得)\s*(?:几|多少)\s*(?:张|块|台)")


def extract(scan: Scan) -> None:
    # These phrases may span a GPU name or a count, so they read claimed characters too.
    m = next(scan.matches(_HOW_MANY, bytearray(len(scan.text))), None)
    if m is None and ("gpu" in scan.fields or "gpu_options" in scan.fields):
        m = next(scan.matches(_HOW_MANY_BARE, bytearray(len(scan.text))), None)
    if m and "gpu_count" not in scan.fields:
        scan.set("intent", "how-many", m.start(), m.end())
        return
    m = next(scan.matches(_FIRST_CHECK, bytearray(len(scan.text))), None)
    if m:
        scan.set("intent", "first-check", m.start(), m.end())
        return
    m = next(scan.matches(_RECOMMEND, scan.names), None)
    if m:
        scan.set("intent", "recommend", m.start(), m.end())
