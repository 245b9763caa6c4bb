"""Runs KernelBench's own evaluation (kernelbench.eval.eval_kernel_against_ref) on a package that
`cairn export ... --harness kernelbench` wrote, on a machine with a GPU and CUDA torch.

    python3 tests/harness/kernelbench_eval.py KERNELBENCH_DIR PROBLEM.py PACKAGE_DIR [TRIALS PERF_TRIALS]

KERNELBENCH_DIR is a checkout of ScalingIntelligence/KernelBench (its src/kernelbench is imported as
the package `kernelbench`, __init__ and all, as its own scripts import it); PROBLEM.py is the
reference (for example KernelBench/level1/19_ReLU.py); PACKAGE_DIR holds the export's model_new.py.
KernelBench's utils module imports its LLM clients at import time (dotenv, openai, litellm), which
the evaluation never calls: where they are not installed, empty stand-ins with the three names it
imports take their place. Nothing else is changed. Prints KernelBench's result and exits 0 when it
compiled and was correct on every trial.
"""
import os
import sys
import types


def stand_in(name, **attrs):
    if name in sys.modules:
        return
    try:
        __import__(name)
        return
    except ImportError:
        pass
    m = types.ModuleType(name)
    for k, v in attrs.items():
        setattr(m, k, v)
    sys.modules[name] = m


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    kb, problem, package = sys.argv[1:4]
    trials = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    perf = int(sys.argv[5]) if len(sys.argv) > 5 else 30

    def unused(*a, **k):
        raise RuntimeError("an LLM client was called during evaluation")

    stand_in("dotenv", load_dotenv=lambda *a, **k: False)
    stand_in("openai", OpenAI=unused)
    stand_in("litellm", completion=unused)
    sys.path.insert(0, os.path.join(kb, "src"))
    import torch
    from kernelbench import eval as kb_eval

    ref = open(problem).read()
    custom = open(os.path.join(package, "model_new.py")).read()
    os.chdir(package)   # model_new.py finds its embedded sources beside it
    result = kb_eval.eval_kernel_against_ref(
        ref, custom, num_correct_trials=trials, num_perf_trials=perf, measure_performance=True,
        verbose=True, device=torch.device("cuda:0"), backend="cuda", precision=torch.float32)
    print("kernelbench result:", result)
    ok = bool(getattr(result, "compiled", False)) and bool(getattr(result, "correctness", False))
    print("kernelbench: %s" % ("compiled and correct" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
