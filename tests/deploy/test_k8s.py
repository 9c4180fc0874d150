"""deploy/k8s: the agent DaemonSet on GPU nodes, checked structurally (no cluster, no network)."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
# `kubectl apply -f deploy/k8s/` applies these (not recursive); monitoring/ needs the Prometheus Operator.
CORE = sorted((ROOT / "deploy" / "k8s").glob("*.yaml"))
OPERATOR = sorted((ROOT / "deploy" / "k8s" / "monitoring").glob("*.yaml"))
MANIFESTS = CORE + OPERATOR
DOCS = [doc for path in MANIFESTS for doc in yaml.safe_load_all(path.read_text()) if doc]
CORE_DOCS = [doc for path in CORE for doc in yaml.safe_load_all(path.read_text()) if doc]
API_VERSIONS = {"Namespace": "v1", "DaemonSet": "apps/v1", "Deployment": "apps/v1", "Secret": "v1", "Service": "v1", "ConfigMap": "v1",
                "ServiceMonitor": "monitoring.coreos.com/v1", "PodMonitor": "monitoring.coreos.com/v1",
                "PrometheusRule": "monitoring.coreos.com/v1"}


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


def test_each_node_reads_its_own_key_from_a_secret_never_a_literal():
    env = {e["name"]: e for e in agent_container()["env"]}
    assert "GPU_ADVISOR_AGENT_SECRET" not in env  # no one shared key
    assert env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName"
    key_file = env["GPU_ADVISOR_AGENT_SECRET_FILE"]["value"]
    assert key_file.endswith("/$(NODE_NAME)")
    pod = daemonset()["spec"]["template"]["spec"]
    mounts = {m["mountPath"]: m["name"] for m in agent_container()["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    keys = volumes[mounts[key_file.rsplit("/", 1)[0]]]
    assert keys["secret"]["secretName"] and not keys["secret"].get("optional")
    next_file = env["GPU_ADVISOR_AGENT_SECRET_NEXT_FILE"]["value"]
    assert volumes[mounts[next_file.rsplit("/", 1)[0]]]["secret"]["optional"] is True  # only while rotating
    assert pod["securityContext"]["fsGroup"] == pod["securityContext"]["runAsUser"]  # the agent can read its key
    for e in agent_container()["env"]:
        assert not ("SECRET" in e["name"] and "value" in e and not e["name"].endswith("_FILE")), e["name"]
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


# -- the bot ---------------------------------------------------------------------------------


def one(kind: str, name: str | None = None) -> dict:
    [doc] = [d for d in DOCS if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    return doc


def bot_container() -> dict:
    [container] = one("Deployment")["spec"]["template"]["spec"]["containers"]
    return container


def test_the_bot_deployment_runs_serve_with_its_secrets_from_secrets():
    deployment = one("Deployment")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert deployment["spec"]["replicas"] >= 2
    container = bot_container()
    args = build_parser().parse_args(container["args"])
    assert container["command"] == ["gpu-advisor"] and args.handler.__name__ == "_cmd_serve"
    env = {e["name"]: e for e in container["env"]}
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "GPU_ADVISOR_DATABASE_URL"):
        assert "value" not in env[name] and set(env[name]["valueFrom"]["secretKeyRef"]) == {"name", "key"}


def test_the_bot_probes_use_its_health_endpoints_and_the_stop_fits_the_grace_period():
    container = bot_container()
    env = {e["name"]: e.get("value") for e in container["env"]}
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["health"] == int(env["GPU_ADVISOR_HEALTH_PORT"]) and ports["metrics"] == int(env["GPU_ADVISOR_METRICS_PORT"])
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "health"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "health"}
    grace = one("Deployment")["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
    assert grace > float(env["GPU_ADVISOR_SHUTDOWN_TIMEOUT"])
    ds_env = {e["name"]: e.get("value") for e in agent_container()["env"]}
    assert daemonset()["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] > float(
        ds_env["GPU_ADVISOR_SHUTDOWN_TIMEOUT"])


def test_the_service_and_pod_monitor_select_pods_and_ports_that_exist():
    service = one("Service")
    pod_labels = one("Deployment")["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    bot_ports = {p["name"] for p in bot_container()["ports"]}
    assert {p["targetPort"] for p in service["spec"]["ports"]} <= bot_ports
    monitor = one("PodMonitor")
    selector = monitor["spec"]["selector"]["matchLabels"]
    agent_labels = daemonset()["spec"]["template"]["metadata"]["labels"]
    assert selector.items() <= pod_labels.items() and selector.items() <= agent_labels.items()
    agent_ports = {p["name"] for p in agent_container()["ports"]}
    assert {e["port"] for e in monitor["spec"]["podMetricsEndpoints"]} == {"metrics", "agent"}
    assert "metrics" in bot_ports and "agent" in agent_ports


def test_images_are_pinned_to_the_release_version():
    import re

    version = re.search(r'^version\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE).group(1)
    for container in (agent_container(), bot_container()):
        assert container["image"].endswith(f"/gpu-advisor:{version}")


def test_the_core_manifests_apply_without_the_prometheus_operator():
    # A cluster without the Operator's CRDs refuses every kind of monitoring.coreos.com (#29).
    assert not [d["kind"] for d in CORE_DOCS if d["apiVersion"].startswith("monitoring.coreos.com/")]
    assert OPERATOR and all(d["apiVersion"].startswith("monitoring.coreos.com/")
                            for path in OPERATOR for d in yaml.safe_load_all(path.read_text()) if d)
    # ... and Prometheus without the Operator finds the bot by its annotations, as it finds the agents.
    annotations = one("Deployment")["spec"]["template"]["metadata"]["annotations"]
    metrics_port = next(p["containerPort"] for p in bot_container()["ports"] if p["name"] == "metrics")
    assert annotations == {"prometheus.io/scrape": "true", "prometheus.io/port": str(metrics_port),
                           "prometheus.io/path": "/metrics"}


def test_the_pod_monitor_carries_the_label_kube_prometheus_stack_selects():
    assert one("PodMonitor")["metadata"]["labels"]["release"] == "kube-prometheus-stack"
