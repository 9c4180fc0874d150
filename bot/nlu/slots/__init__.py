"""One extractor per slot (or group of related slots), each a function of a `bot.nlu.scan.Scan`.

They run in the order of EXTRACTORS, and each claims the characters it reads, so the order decides
who reads what: the network before GPUs ("100GbE" is not a memory size), instances and prices before
GPU names (a GPU named in a cost clause labels that cost), models before sizes ("Llama-3-70B" is not
also a 70B size), explicit numbers before keywords, and what is inferred from other slots last.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.nlu import quantities
from bot.nlu.scan import Scan
from bot.nlu.slots import (asks, budget, prompt_lengths, checkpoints, costs, gpus, instances, intent, keywords, models, monthly, network,
                           numbers, options, providers, sizes, sizing_extras, symptoms, unknown_gpus, usage, users,
                           versions, xids)

Extractor = Callable[[Scan], None]

EXTRACTORS: tuple[Extractor, ...] = (
    network.extract,
    prompt_lengths.extract,  # before the numbers: "1k in / 256 out" is one request's context
    xids.extract,
    versions.extract,
    instances.extract,
    budget.extract,
    usage.extract,
    monthly.extract,  # before costs: a quote never reaches back past a monthly price
    costs.extract,
    models.extract,
    gpus.extract,
    sizes.extract,
    models.from_family,
    providers.extract,
    numbers.extract,
    users.extract,
    checkpoints.extract,
    keywords.settings,
    sizing_extras.extract,
    keywords.precision,
    symptoms.extract,
    unknown_gpus.extract,
    keywords.workload,
    keywords.topics,
    intent.extract,
    options.compared_billing,
    users.served,
    numbers.bare_context,
    asks.extract,  # last: what each part asks, read with everything the others found
    quantities.extract,  # every typed number, outside the names the others claimed (issue #23)
)
