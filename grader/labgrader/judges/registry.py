"""The judges, registered where they are defined: a step's module marks
each of its judges with @judge(step) or @judge(step, side=...), as MIT
xv6's gradelib marks its tests with @test, so that no second list can
drift from the code."""

# step -> [(side, function)] in the order of registration; side None
# judges both sides.
REGISTRY = {}
SIDES = ("server", "client")


def judge(step, side=None):
    """Register the function as step's judge of side ("server",
    "client") or of both (None); it is called as fn(Evidence, Check)."""
    if side not in SIDES + (None,):
        raise ValueError("judge %s: side %r" % (step, side))

    def register(fn):
        REGISTRY.setdefault(step, []).append((side, fn))
        return fn
    return register


def judges_of(step, side):
    """The functions that judge side's step, in their module's order."""
    return [fn for s, fn in REGISTRY.get(step, []) if s in (None, side)]
