"""Cloud instance types: 'p4d.24xlarge', 'ecs.gn7i-c8g1.2xlarge', 'p5 instances' -> instance (and
the provider, and for a type the catalog knows its GPU and count); a second type -> instance_options."""

from __future__ import annotations

import re

from bot.nlu import lexicon as lx
from bot.nlu.numbers import count_value
from bot.nlu.scan import Scan
from bot.nlu.slots.counts import COUNT

_AWS_FAMILIES = r"(p3dn|p3|p4de|p4d|p5en|p5e|p5|p6|g4dn|g5|g6e|g6)"
_AWS_FAMILY = lx.rx(rf"\B<{_AWS_FAMILIES}\s*(?:instances?|family|nodes?|boxes|machines?|实例)>\E"
                    rf"|\B<{_AWS_FAMILIES}(?=\s*(?:实例|机型))"
                    # "a p4d on demand", "AWS p4d 按需多少钱": a bare family where a price is asked of it
                    rf"|\B<{_AWS_FAMILIES}>\E(?=\s*(?:on[\s-]demand|spot|reserved|按需|竞价|抢占|包月|价格|多少|price|cost|per\s+hour|每小时|一小时))")

# An Alibaba Cloud family named bare ("gn7i", "ebmgn8v", "阿里云 gn8is"): not a full type such as
# "ecs.gn7i-c8g1.2xlarge" (lx.ALIYUN_INSTANCE reads those), so no "-" or "." size after it.
_ALIYUN_FAMILY = lx.rx(r"\B<(?:ecs\.)?((?:ebm)?gn[0-9]{1,2}[a-z]{0,3})>\E(?![-.][0-9a-z])")


# "4x g6e.48xlarge", "two p5.48xlarge", "4 台 p4d.24xlarge", "3 个 ecs.gn7i-c8g1.2xlarge": how many instances of
# the type; each brings its own GPUs, so the user's GPUs are the instances times the type's GPUs.
_INSTANCES_BEFORE = lx.rx(rf"{COUNT}\s*(?:x|×|\*|台|个)?\s*(?:aws\s+|gcp\s+|阿里云\s*)?$")


def _instances_before(scan: Scan, start: int) -> tuple[int, int] | None:
    """The count of instances written just before an instance type, and where it starts."""
    before = _INSTANCES_BEFORE.search(scan.text, max(0, start - 16), start)
    if before is None or not scan.free(before.start(), start):
        return None
    n = count_value(before.group(1) or before.group(2) or before.group(3))
    return (n, before.start()) if n and 1 < n <= 512 else None


def extract(scan: Scan) -> None:
    for m in scan.matches(lx.AWS_INSTANCE):
        _aws_type(scan, m)
    for m in scan.matches(_AWS_FAMILY):
        _aws_family(scan, m)
    for m in scan.matches(lx.GCP_INSTANCE):
        scan.name(m.start(), m.end())
        if "gcp" in scan.lex.catalog.providers:
            scan.set("provider", "gcp", m.start(), m.end())
        _known_type(scan, m)
    for m in scan.matches(lx.ALIYUN_INSTANCE):
        scan.name(m.start(), m.end())
        if "aliyun" in scan.lex.catalog.providers:
            scan.set("provider", "aliyun", m.start(), m.end())
        _known_type(scan, m)
    for m in scan.matches(_ALIYUN_FAMILY):
        _aliyun_family(scan, m)


def _aliyun_family(scan: Scan, m: re.Match) -> None:
    """"gn7i": the family's smallest size stands for it (its sizes run from one GPU to eight, and the
    job decides how many), and the family's GPU is the user's GPU (the instance says whether Alibaba
    names that GPU or only its memory profile); a second family is compared with the first."""
    sizes = [i for i in scan.lex.catalog.instances.values() if i.provider == "aliyun" and i.family == m.group(1)]
    if not sizes:
        return
    smallest = min(sizes, key=lambda i: (i.count, i.vcpus or 0))
    scan.name(m.start(), m.end())
    if "instance" in scan.fields:
        if smallest.gpu and smallest.name != scan.fields["instance"]:  # "gn7e or gn8is"
            scan.fields.setdefault("instance_options", []).append(smallest.name)
            scan.spans.append(scan.span("instance_options", smallest.name, m.start(), m.end()))
        return
    scan.set("provider", "aliyun", m.start(), m.end())
    scan.set("instance", smallest.name, m.start(), m.end())
    if len({i.gpu for i in sizes}) == 1 and smallest.gpu:
        scan.set("gpu", smallest.gpu, m.start(), m.end())


def _aws_type(scan: Scan, m: re.Match) -> None:
    scan.take(m.start(), m.end())
    scan.name(m.start(), m.end())
    if "aws" in scan.lex.catalog.providers:
        scan.set("provider", "aws", m.start(), m.end())
    if m.group(2).startswith(("g", "vt")):
        scan.add("topics", "quota", m.start(), m.end())
    _known_type(scan, m)


def _aws_family(scan: Scan, m: re.Match) -> None:
    """"p5 instances": the family's largest size stands for it (its GPU, its quota)."""
    family = next(g for g in m.groups() if g)
    sizes = [i for i in scan.lex.catalog.instances.values() if i.provider == "aws" and i.family == family]
    if not sizes or "instance" in scan.fields:
        return
    largest = max(sizes, key=lambda i: i.count)
    scan.name(m.start(), m.end())
    scan.set("provider", "aws", m.start(), m.end())
    scan.set("instance", largest.name, m.start(), m.end())
    if largest.gpu:
        scan.set("gpu", largest.gpu, m.start(), m.end())


def _known_type(scan: Scan, m: re.Match) -> None:
    """A known instance type is also a GPU and a count ("p4d.24xlarge": 8 x A100 40GB)."""
    known = scan.lex.catalog.instance(scan.written(m))
    if known is None:
        return
    if "instance" in scan.fields:
        # "p4d.24xlarge vs p5.48xlarge": the second is compared with the first, GPU for GPU
        if known.gpu and known.name != scan.fields["instance"]:
            scan.fields.setdefault("instance_options", []).append(known.name)
            scan.spans.append(scan.span("instance_options", known.name, m.start(), m.end()))
        return
    scan.set("instance", known.name, m.start(), m.end())
    if known.gpu:
        scan.set("gpu", known.gpu, m.start(), m.end())
        instances = _instances_before(scan, m.start())
        if instances is None:
            scan.set("gpu_count", known.count, m.start(), m.end())
            return
        n, start = instances  # "4x g6e.48xlarge": 4 instances of 8 L40S are 32 GPUs on 4 nodes
        scan.set("gpu_count", n * known.count, start, m.end())
        if known.count > 1:
            scan.add("topics", "cluster", start, m.end(), take=False)
