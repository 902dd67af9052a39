"""The judge of step open_device (docs/grading.md, "Scoring and
evidence")."""
from ..evidence.kernel import created
from ..hints import hint
from ..text import num
from .registry import judge


@judge("open_device")
def judge_open_device(ev, c):
    """Port, GID and MTU against sysfs / ibv_devinfo."""
    S, me, rtr = ev.S, ev.me, ev.rtr
    if S.ok("open_device") and not S.calls(
            "ibv_open_device", lambda e: created(e["_ret"])):
        c.bad("ibv_open_device() by your program", "no device opened in "
              "the kernel's trace of your process", hint("traced"))
    if S.ok("open_device"):
        idx = num(S.val("open_device", "gid_idx"), -1)
        if rtr and num(rtr[-1].get("is_global")):
            idx = num(rtr[-1].get("sgid_idx"), idx)
        gid, typ = me["gids"].get(idx, ("", ""))
        if num(S.val("open_device", "mtu")) != me["mtu"]:
            c.bad("mtu=%d (active_mtu of %s)" % (me["mtu"], me.get("dev")),
                  "mtu=%s" % S.val("open_device", "mtu"), hint("port"))
        if not gid.startswith("0000:0000:0000:0000:0000:ffff:") or \
                typ != "RoCE v2":
            good = [i for i, (g, t) in sorted(me["gids"].items())
                    if t == "RoCE v2" and
                    g.startswith("0000:0000:0000:0000:0000:ffff:")]
            c.bad("GID index %s (RoCE v2, IPv4-mapped)" %
                  (good[0] if good else "?"),
                  "GID index %d = %s (%s)" % (idx, gid or "empty",
                                               typ or "?"), hint("gid"),
                  fixed=True)
        elif S.val("open_device", "gid") not in (None, gid) and \
                idx == num(S.val("open_device", "gid_idx"), -1):
            c.bad("gid=%s (sysfs gids/%d)" % (gid, idx),
                  "gid=%s" % S.val("open_device", "gid"), hint("gid"))
