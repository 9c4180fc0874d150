"""Random mixes of real facts through fresh engines: durable-rules must never crash (run as a subprocess)."""
import random, sys
from bot.advisor import Advisor
from bot.engine.fact_kinds import fact_kind
from bot.engine.session import Engine
from bot.models import Requirement
a = Advisor()
reqs = [dict(workload="training",params_b=7,gpu="rtx-4090",deployment="datacenter"), dict(model="llama-3-70b", workload="inference", gpu="H100"),
        dict(provider="aws", billing="spot", gpu="h100-sxm"), dict(deployment="datacenter"), dict(cuda="13.0", driver="535.104.05", gpu="l40s"),
        dict(topics=["mig"], gpu="a100-80gb-sxm"), dict(xids=[79,13], symptoms=["ecc-errors"]), dict(psu_watts=750, gpu="rtx-5090", gpu_count=4)]
allfacts = [f for r in reqs for f in a.facts(a.resolve(Requirement(**r)))[0]]
rnd = random.Random(int(sys.argv[1]))
for e_i in range(int(sys.argv[2]) if len(sys.argv) > 2 else 15):
    eng = Engine(a.engine.rulebase)
    for q in range(40):
        sub = rnd.sample(allfacts, rnd.randint(1, 25))
        # de-dupe requirement facts: keep at most one requirement
        seen=False; facts=[]
        for fact in sub:
            if fact_kind(fact) == "requirement":
                if seen: continue
                seen=True
            facts.append(fact)
        eng.run(facts)
    eng.close()
print("ok")
