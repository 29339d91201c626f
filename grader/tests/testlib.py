"""What the Python parts of the grader's shell tests share (batch_test.sh, shard_test.sh), imported through
PYTHONPATH=grader/tests: expectations reported and counted, and the test's work folder read.

    import testlib
    from testlib import expect, text, rc
    testlib.work = WORK
    expect(rc("b1") == 0, "...")
    testlib.finish()
"""
import sys

work = "."      # the test's work folder: text() and rc() read from it
problems = []   # what failed, in order


def expect(ok, what):
    """Reports "ok   WHAT" or "FAIL WHAT", and counts a failure."""
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        problems.append(what)


def text(name):
    """The text of WORK/NAME."""
    with open(f"{work}/{name}") as f:
        return f.read()


def rc(name):
    """The exit status a command left in WORK/NAME.rc."""
    return int(text(name + ".rc"))


def finish():
    """Exits 1 if any expectation failed, else 0."""
    sys.exit(1 if problems else 0)
