"""The framework check from the training-servers guide: torch, its CUDA, and a 1024x1024 matmul."""

from __future__ import annotations

from bot.host_report import FrameworkReport


def check_framework() -> FrameworkReport:
    try:
        import torch
    except ImportError:
        return FrameworkReport(torch_installed=False, detail="torch is not installed")
    report = FrameworkReport(torch_installed=True, torch_version=torch.__version__, torch_cuda=torch.version.cuda,
                             cuda_available=bool(torch.cuda.is_available()))
    if not report.cuda_available:
        report.detail = "torch.cuda.is_available() is False"
        return report
    try:
        report.device_name = torch.cuda.get_device_name(0)
        a = torch.randn(1024, 1024, device="cuda")
        product = a @ a
        torch.cuda.synchronize()
        report.matmul_ok = bool(torch.isfinite(product).all().item())
    except Exception as exc:  # a broken CUDA stack must be reported, not crash the probe
        report.matmul_ok = False
        report.detail = f"matmul failed: {exc}"
    return report
