"""deploy/k8s: the agent DaemonSet on GPU nodes, checked structurally (no cluster, no network)."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = sorted((ROOT / "deploy" / "k8s").glob("*.yaml"))
DOCS = [doc for path in MANIFESTS for doc in yaml.safe_load_all(path.read_text()) if doc]
API_VERSIONS = {"Namespace": "v1", "DaemonSet": "apps/v1", "Secret": "v1", "Service": "v1", "ConfigMap": "v1",
                "ServiceMonitor": "monitoring.coreos.com/v1", "PodMonitor": "monitoring.coreos.com/v1"}


def daemonset() -> dict:
    [ds] = [d for d in DOCS if d["kind"] == "DaemonSet"]
    return ds


def agent_container() -> dict:
    [container] = daemonset()["spec"]["template"]["spec"]["containers"]
    return container


def test_every_document_has_a_known_kind_api_version_and_name():
    assert MANIFESTS, "no manifests in deploy/k8s"
    for doc in DOCS:
        assert doc["apiVersion"] == API_VERSIONS[doc["kind"]], doc["kind"]
        assert doc["metadata"]["name"]


def test_the_daemonset_selector_matches_its_pod_labels():
    spec = daemonset()["spec"]
    labels = spec["template"]["metadata"]["labels"]
    assert spec["selector"]["matchLabels"].items() <= labels.items()


def test_it_runs_on_gpu_nodes_with_the_nvidia_runtime():
    pod = daemonset()["spec"]["template"]["spec"]
    assert pod["runtimeClassName"] == "nvidia"
    assert pod["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert any(t["key"] == "nvidia.com/gpu" for t in pod["tolerations"])
    # It sees the node's GPUs without reserving one from the jobs it checks.
    assert "nvidia.com/gpu" not in agent_container()["resources"].get("limits", {})


def test_the_container_runs_the_agent_entry_point():
    container = agent_container()
    assert container["command"] == ["gpu-advisor"]
    args = build_parser().parse_args(container["args"])
    assert args.handler.__name__ == "_cmd_agent_serve" and args.open_metrics


def test_the_hmac_key_is_a_secret_reference_never_a_literal():
    env = {e["name"]: e for e in agent_container()["env"]}
    secret = env["GPU_ADVISOR_AGENT_SECRET"]
    assert "value" not in secret
    assert set(secret["valueFrom"]["secretKeyRef"]) == {"name", "key"}
    assert not [d for d in DOCS if d["kind"] == "Secret"], "a Secret with its data must not be committed"


def test_probes_hit_health_on_the_agent_port():
    container = agent_container()
    [port] = container["ports"]
    assert str(port["containerPort"]) in container["args"]
    for probe in ("livenessProbe", "readinessProbe"):
        http = container[probe]["httpGet"]
        assert http["path"] == "/health" and http["port"] in (port["name"], port["containerPort"])


def test_prometheus_is_told_where_to_scrape():
    annotations = daemonset()["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/path"] == "/metrics"
    assert annotations["prometheus.io/port"] == str(agent_container()["ports"][0]["containerPort"])


def test_every_mount_names_a_declared_volume():
    pod = daemonset()["spec"]["template"]["spec"]
    declared = {v["name"] for v in pod["volumes"]}
    assert {m["name"] for m in agent_container()["volumeMounts"]} <= declared
    assert all(m.get("readOnly") for m in agent_container()["volumeMounts"] if m["name"] == "kern-log")
