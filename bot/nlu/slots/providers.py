"""Cloud providers: catalog names and aliases ('AWS', '阿里云', 'RunPod'), aliases that are ordinary
words only when capitalised or after a preposition ('on Vast', not 'the vast majority') -> provider;
providers the catalog lacks ('Azure', '腾讯云') are reported in Parse.ignored; later ones are options."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.scan import Scan
from bot.nlu.slots import options

# "AWS Lambda", "a Lambda function": Amazon's serverless service, not the Lambda GPU cloud
_AWS_SERVICE_BEFORE = re.compile(r"(?:\baws|\bamazon)[\s-]*$")
_AWS_SERVICE_AFTER = re.compile(r"[\s-]*(?:functions?|layers?|handlers?|invocations?)\b")
_LISTED = re.compile(r"[,，、/]\s*$")
_PREPOSITION = re.compile(r"(?:\b(?:on|at|from|via|with|use|using|in|try|and|or|vs)\s+|[在用上和或])\s*$")


def extract(scan: Scan) -> None:
    for m in scan.matches(scan.lex.providers.pattern):
        value = scan.lex.providers.lookup(m.group(0))
        if value == "lambda" and _aws_service(scan, m):
            scan.name(m.start(), m.end())  # the service's name, read as no provider
            continue
        if value:
            scan.set("provider", value, m.start(), m.end())
            scan.name(m.start(), m.end())
    if scan.lex.provider_case_rx is not None:
        for m in scan.lex.provider_case_rx.finditer(scan.text):
            if scan.free(m.start(), m.end()) and _written_as_a_name(scan, m):
                scan.set("provider", _case_sensitive_value(scan, m.group(1)), m.start(), m.end())
                scan.name(m.start(), m.end())
    for m in scan.matches(lx.UNKNOWN_PROVIDERS):
        scan.ignore("provider", scan.written(m), m.start(), m.end(), note="provider not in the catalog",
                    kind="unknown-provider")
    options.provider_options(scan)


def _aws_service(scan: Scan, m: re.Match) -> bool:
    """"aws lambda", "Lambda functions": Amazon's serverless service named, not the GPU cloud."""
    return bool(_AWS_SERVICE_BEFORE.search(scan.text, max(0, m.start() - 10), m.start())
                or _AWS_SERVICE_AFTER.match(scan.text, m.end()))


def _written_as_a_name(scan: Scan, m: re.Match) -> bool:
    """"Vast" mid-sentence, "on vast", or "Vast" opening the question; not "Vast" opening a sentence."""
    written = scan.written(m)
    capitalised = written[:1].isupper()
    if capitalised and m.start() > 0 and not scan.original[:m.start()].rstrip().endswith((".", "!", "?")):
        return True
    if _PREPOSITION.search(scan.text, max(0, m.start() - 8), m.start()):
        return True
    if _LISTED.search(scan.text, max(0, m.start() - 4), m.start()) and "provider" in scan.fields:
        return True  # "aws p5, lambda 8x, runpod 8x, vast 8x": one more in a list of providers
    return m.start() == 0 and capitalised


def _case_sensitive_value(scan: Scan, written: str) -> str:
    names = scan.lex.provider_case
    lowered = written.lower()
    return names[lowered] if lowered in names else next(v for k, v in names.items() if k.lower() == lowered)
