"""Chinese for the calculators' lines (assumptions, plan labels, interconnect notes, cost lines).

The calculators in `bot.sizing` write their working in English, one line per assumption. A Chinese
answer shows the same lines in Chinese: each known line shape is matched whole and rewritten with
its numbers kept; phrases of shapes not listed are translated piecewise, so no line of a Chinese
answer is left entirely in English. Add a shape here when the sizer gains a new kind of line.
"""

from __future__ import annotations

import re

from bot.cache import compiled_regex

_N = r"([0-9][0-9.,]*)"

# Whole-line shapes, most specific first. `\g<n>` keeps the numbers and names of the English line.
# compiled_regex: re.compile, its compiled program kept across processes (cold start).
_LINES: list[tuple[re.Pattern, str]] = [(compiled_regex(p), r) for p, r in [
    (rf"^{_N} GB per GPU for the CUDA context and allocator reserve/fragmentation \(an assumption\)$",
     r"每张 GPU 预留 \1 GB 给 CUDA 上下文和显存分配器的预留/碎片（假设值）"),
    (r"^dataset size not given: no training time or cost-to-complete \(give tokens=<billions> and epochs=<n>\)$",
     "未给出数据量：无法估算训练时间和跑完的费用（请给出 tokens=<十亿> 和 epochs=<轮数>）"),
    (rf"^sequence length not given: {_N} tokens$", r"未给出序列长度：按 \1 个 token 计算"),
    (rf"^micro-batch not given: {_N} per GPU$", r"未给出 micro-batch：按每张 GPU \1 计算"),
    (r"^optimizer not given: assumed AdamW \(paged, QLoRA recipe\)$", "未给出优化器：按 QLoRA 的做法假设为分页 AdamW"),
    (r"^optimizer not given: assumed AdamW$", "未给出优化器：假设为 AdamW"),
    (r"^precision not given: assumed (\S+) weights$", r"未给出精度：假设权重为 \1"),
    (r"^precision not given: assumed (\S+)$", r"未给出精度：假设为 \1"),
    (r"^method not given: assumed full fine-tuning$", "未给出训练方法：假设为全参微调"),
    (r"^concurrency not given: one request at a time$", "未给出并发：按一次一个请求计算"),
    (rf"^context not given: the model's default, {_N} tokens$", r"未给出上下文长度：按模型默认的 \1 个 token 计算"),
    (rf"^context not given: {_N} tokens assumed$", r"未给出上下文长度：假设为 \1 个 token"),
    (r"^workload not given: sized for inference \(the smallest footprint\)$", "未给出任务类型：按推理估算（显存占用最小）"),
    (rf"^LoRA rank not given: r={_N}$", r"未给出 LoRA 秩：r=\1"),
    (r"^epochs not given: one pass over the data$", "未给出 epoch 数：按遍历一次数据计算"),
    (r"^LoRA on the attention and MLP projections \((.*)\)$", r"LoRA 作用于注意力和 MLP 投影层（\1）"),
    (r"^LoRA: frozen base weights in (\S+)$", r"LoRA：基座权重冻结，精度为 \1"),
    (rf"^activations: one layer's working set for a {_N}-token prefill chunk \((.*)\)$",
     r"激活值：按每次预填充 \1 个 token 的一层工作集计算（\2）"),
    (r"^model states (.*) = ([0-9.]+) bytes/param \(ZeRO paper\)$", r"模型状态 \1 = 每参数 \2 字节（ZeRO 论文）"),
    (r"^KV cache = (.*) = ([0-9.,]+) GB \(([0-9.,]+) KiB per token before any window cap\)(.*)$",
     r"KV 缓存 = \1 = \2 GB（窗口截断前每个 token \3 KiB）\4"),
    (r"^inference speed is an estimate, not a benchmark: (.*)$",
     r"推理速度是估算值，不是基准测试结果：解码受显存带宽限制，预填充受算力限制；上线前请用基准工具（如 GenAI-Perf/AIPerf）实测"),
    (r"^total cost = (.*)$", r"总费用 = GPU 计算 + vCPU/内存 + 镜像 + 块存储 + 带宽 + 快照 + 软件 + 恢复（检查点、重跑、容灾）+ 运维"),
    (r"^no model named that this advisor knows: (.*)$", r"未指定本顾问认识的模型：\1"),
    (r"^left out: (.*?) \((.*)\)$", r"未考虑：\1（\2）"),
    (r"^activations \(Korthikanti et al\. ([0-9]+)\): (.*)$", r"激活值（Korthikanti 等，\1）：\2"),
    (r"^training time \(an estimate\): (.*)$", r"训练时间（估算）：\1"),
    (r"^mixture-of-experts: all ([0-9.]+)B parameters held in memory, ([0-9.]+)B active per token$",
     r"混合专家模型：显存中保存全部 \1B 参数，每个 token 激活 \2B"),
    (r"^(\d+) x (\S+) cannot hold this job \((.*)\); the smallest plan that fits is (.*)$",
     r"\1 张 \2 放不下这个任务（\3）；能放下的最小方案是 \4"),
    (r"^(\d+) x (\S+) cannot hold this job \((.*)\); no count of (\S+) holds it$",
     r"\1 张 \2 放不下这个任务（\3）；多少张 \4 都放不下"),
    (r"^cost-to-complete = (.*)$", r"跑完的费用 = \1"),
    (r"^cheapest plan \((\S+)\): (.*)$", r"最便宜的方案（\1）：\2"),
    (r"^fastest plan: (.*)$", r"最快的方案：\1"),
]]

# Phrases inside plan labels, interconnect notes and the lines above: translated piece by piece.
_PHRASES: list[tuple[re.Pattern, str]] = [(compiled_regex(p), r) for p, r in [
    (r"^single GPU$", "单卡"),
    (r"ZeRO-(\d) / FSDP full shard \(weights, gradients, optimizer states sharded\) over (\d+) GPUs", r"ZeRO-\1 / FSDP 全分片（权重、梯度、优化器状态都分片），\2 卡"),
    (r"data parallel, ZeRO-(\d) \(optimizer states \+ gradients sharded\) over (\d+) GPUs", r"数据并行 + ZeRO-\1（优化器状态和梯度分片），\2 卡"),
    (r"data parallel, ZeRO-(\d) \(optimizer states sharded\) over (\d+) GPUs", r"数据并行 + ZeRO-\1（优化器状态分片），\2 卡"),
    (r"tensor parallel x(\d+) x pipeline parallel x(\d+)", r"张量并行 x\1 × 流水线并行 x\2"),
    (r"tensor parallel x(\d+)", r"张量并行 x\1"),
    (r"one GPU: no interconnect needed", "单卡：不需要互联"),
    (r"ZeRO-(\d)/FSDP gathers weights every step: PCIe works, NVLink/NVSwitch recommended",
     r"ZeRO-\1/FSDP 每一步都要汇聚权重：PCIe 可用，建议 NVLink/NVSwitch"),
    (r"data parallel: PCIe works; NVLink speeds the gradient all-reduce", "数据并行：PCIe 可用；NVLink 能加快梯度 all-reduce"),
    (r"tensor parallelism over (\d+) GPUs wants NVLink/NVSwitch", r"\1 卡张量并行需要 NVLink/NVSwitch"),
    (r"\((\S+) has no NVLink: over PCIe it runs, but every layer waits on all-reduces\)",
     r"（\1 没有 NVLink：走 PCIe 能跑，但每一层都要等 all-reduce）"),
    (r"\((\S+) links only pairs: over PCIe it runs, but every layer waits on all-reduces\)",
     r"（\1 只能两两互联：走 PCIe 能跑，但每一层都要等 all-reduce）"),
    (r"crosses nodes \((\d+) nodes of (\d+)\): needs a fast inter-node network \(InfiniBand or RoCE, ([0-9-]+) Gb/s per GPU class\)",
     r"跨节点（\1 个节点，每节点 \2 卡）：需要高速节点间网络（InfiniBand 或 RoCE，每 GPU \3 Gb/s 级别）"),
    (r"gradient checkpointing \(full recompute\)", "梯度检查点（完全重计算）"),
    (r"FlashAttention-style attention / selective recompute", "FlashAttention 式注意力 / 选择性重计算"),
    (r"the (\w+) recipe's default", r"\1 做法的默认值"),
    (r"plus fp32 logits and their gradient", "另加 fp32 logits 及其梯度"),
    (r"no bf16 tensor cores: no bf16 plan there; ask for fp16 mixed precision to size them",
     "没有 bf16 张量核心：不提供 bf16 方案；改用 fp16 混合精度可以估算"),
    (r"estimated hours", "估算时长"),
    (r"per month", "每月"),
    (r"not given", "未给出"),
    (r"assumed", "假设"),
    (r"per GPU", "每卡"),
    (r"GPUs", "卡"),
    (r"(?<![=\w])tokens(?![=\w])", "个 token"),
]]

_CJK = re.compile(r"[\u4e00-\u9fff]")


def to_zh(line: str) -> str:
    """One calculator line in Chinese (numbers, ids and formulas kept)."""
    for pattern, replacement in _LINES:
        if pattern.match(line):
            line = pattern.sub(replacement, line)
            break
    for pattern, replacement in _PHRASES:
        line = pattern.sub(replacement, line)
    return line


def localise(line: str | None, language: str) -> str | None:
    if line is None or language != "zh" or _CJK.search(line):
        return line
    return to_zh(line)
