"""The scoring core and the verifier modules import no torch/transformers/httpx at module load."""

from __future__ import annotations

import subprocess
import sys


def test_verifier_modules_do_not_import_heavy_libraries_at_load():
    code = (
        "import sys\n"
        "import rewards.scoring.score, rewards.adapters.counterfactual\n"
        "import rewards.verifiers.prm, rewards.verifiers.judge, rewards.verifiers.nli\n"
        "import rewards.verifiers.families, rewards.verifiers.fallback, rewards.verifiers.registry\n"
        "heavy = sorted(m for m in ('torch', 'transformers', 'httpx') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
