"""The grader's evidence readers, on recorded evidence (no guests): the
guest kernel's trace (tests/grader/ktrace/, recorded from real grading runs
of the reference, the notice_early mistake, the raw_barrier hostile and
tests/grader/seeds/ext.c, the guests at their addresses 192.0.2.1 and .2, and
of a small loopback program in one guest) and the wire's ICRC
(docs/runs/demo.pcap); and the batch's progress count.

A unittest module (tests/checklib.py): runs alone (python3
tests/grader/grader_evidence.py, or python3 -m unittest grader_evidence
from tests/grader) or in tests/unit.sh, which reads its "ok NAME" /
"FAIL NAME: why" lines."""
import functools
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "grader"))
from labgrader import course, text, verbs  # noqa: E402
from labgrader.evidence import kernel, peer, sendq, wire  # noqa: E402
from labgrader.judges import causes  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                ".."))  # tests/checklib.py
import checklib  # noqa: E402

SRV, CLI = "192.0.2.1", "192.0.2.2"
# The objects the reference's client makes, and ext.c's client must too.
WANT = {"ibv_open_device", "ibv_alloc_pd", "ibv_create_comp_channel",
        "ibv_create_cq", "ibv_reg_mr", "ibv_create_qp"}
ATOMICS = [verbs.WC_FETCH_ADD, verbs.WC_COMP_SWAP]


def qp(tr):
    """The QPN of a trace's last QP (each recorded program has one)."""
    qps = [e for e in tr if e["_fn"] == "ibv_create_qp" and
           kernel.created(e["_ret"])]
    return text.num(qps[-1].get("qpn")) if qps else None


def kt(name):
    with open(os.path.join(HERE, "ktrace", name)) as f:
        return f.read()


@functools.lru_cache(maxsize=None)
def trace(name):
    """A recorded trace parsed once for every class that reads it (the
    readers only read the events, so sharing them is as the top-level
    script shared them)."""
    return kernel.parse_ktrace(kt(name))


class ReferenceCalls(checklib.Case):
    """The reference's calls as the uprobes recorded them."""

    @classmethod
    def setUpClass(cls):
        cls.ref_cli = trace("reference-client.txt")
        cls.ref_srv = trace("reference-server.txt")

    def test_ktrace_calls_joined_with_returns(self):
        made = {e["_fn"] for e in self.ref_cli if kernel.created(e["_ret"])}
        self.assertTrue(WANT <= made, "created: %s" % sorted(made))

    def test_ktrace_reference_releases_all(self):
        live, bad = kernel.leaks(self.ref_cli)
        why = "%s %s" % (live, bad)
        self.assertFalse(live, why)
        self.assertFalse(bad, why)

    def test_ktrace_dgid_as_the_tracer_wrote_it(self):
        rtr = [e for e in self.ref_cli if e["_fn"] == "ibv_modify_qp" and
               text.num(e.get("state")) == verbs.QPS_RTR]
        why = rtr and rtr[0].get("dgid")
        self.assertTrue(rtr, why)
        self.assertTrue(
            rtr[0]["dgid"].startswith("0000:0000:0000:0000:0000:ffff:"), why)

    def test_ktrace_immediate_in_host_order(self):
        imms = {e["imm"] for e in self.ref_srv if e["_fn"] == "wc" and
                text.num(e.get("flags"), 0) & 2}
        sent = {e["imm"] for e in self.ref_cli if e["_fn"] == "ibv_post_send"
                and text.num(e.get("opcode")) in (1, 3)}
        why = "completed %s, posted %s" % (imms, sent)
        self.assertTrue(imms, why)
        self.assertEqual(imms, sent, why)

    def test_qp_masks_of_the_reference_transitions(self):
        # The masks a refused transition is held to (causes.QP_MASKS,
        # whose hint names the bits missing): every transition of the
        # reference has them all (a wrong bit there once named
        # MIN_RNR_TIMER missing from a right RTR).
        mods = [e for e in self.ref_cli + self.ref_srv
                if e["_fn"] == "ibv_modify_qp"]
        lack = [(e.get("state"), e.get("mask"), n) for e in mods
                for n, bit in causes.QP_MASKS.get(text.num(e.get("state")),
                                                  ())
                if not text.num(e.get("mask"), 0) & bit]
        why = "%d transitions; lacking: %s" % (len(mods), lack)
        self.assertGreaterEqual(len(mods), 6, why)
        self.assertFalse(lack, why)


def assert_receives_before_barrier(case, srv, receives):
    """SRV's barrier went to the client after RECEIVES receives on its QP;
    returns the barrier's index."""
    at = kernel.signal_at(srv, "server", "barrier", CLI)
    why = "barrier at %s, %s receives before" % (
        at, kernel.recvs_before(srv, at or 0, qp(srv)))
    case.assertIsNotNone(at, why)
    case.assertEqual(kernel.recvs_before(srv, at, qp(srv)), receives, why)
    return at


def assert_notices_after_completions(case, cli):
    """CLI's write and atomic notices went after their completions."""
    why = "write or atomic notice before its completions"
    case.assertIs(kernel.write_done_early(cli, SRV, qp(cli)), False, why)
    case.assertIs(kernel.notice_early(cli, kernel.signal_at(
        cli, "client", "atomic_done", SRV), ATOMICS, qp(cli)), False, why)


class NoticeOrder(checklib.Case):
    """Notices and barriers against the completions and receives."""

    @classmethod
    def setUpClass(cls):
        cls.ref_cli = trace("reference-client.txt")
        cls.ref_srv = trace("reference-server.txt")
        cls.early = trace("notice_early-client.txt")
        cls.raw = trace("raw_barrier-server.txt")

    def test_ktrace_barrier_after_the_receives(self):
        assert_receives_before_barrier(self, self.ref_srv, 3)

    def test_ktrace_notices_after_the_completions(self):
        assert_notices_after_completions(self, self.ref_cli)

    def test_ktrace_notice_before_completion(self):
        got = kernel.write_done_early(self.early, SRV, qp(self.early))
        self.assertIs(got, True, "notice_early's trace: %s" % got)

    def test_ktrace_barrier_is_a_byte_not_a_call(self):
        at = kernel.signal_at(self.raw, "server", "barrier", CLI)
        why = "raw_barrier's barrier at %s" % at
        self.assertIsNotNone(at, why)
        self.assertEqual(kernel.recvs_before(self.raw, at, qp(self.raw)), 0,
                         why)

    def test_ktrace_completion_counts_when_polled(self):
        # Written by the kernel is not taken by the program: the same run
        # with its polls left out sent its notice before it had the
        # WRITE's completion.
        unpolled = kernel.parse_ktrace("\n".join(
            line for line in kt("reference-client.txt").splitlines()
            if "ibv_poll_cq_ret:" not in line))
        got = kernel.write_done_early(unpolled, SRV, qp(unpolled))
        self.assertIs(got, True, "without its polls: %s" % got)

    def test_ktrace_missing_notice_is_not_a_pass(self):
        no_tcp = [e for e in self.ref_cli if e["_fn"] != "tcp"]
        self.assertIsNone(kernel.write_done_early(no_tcp, SRV, qp(no_tcp)),
                          "a trace without its notice")
        self.assertIsNone(kernel.signal_at(self.ref_cli, "client",
                                           "barrier", "10.0.0.9"),
                          "a barrier to an address never written to")


class ForgedLines(checklib.Case):
    def test_ktrace_only_its_own_shape(self):
        # Only lines of the probes' own shape count: text in a field, or
        # a line cut short, is no event.
        forged = ("           <...>-363     [000] DNZff    53.7: barrier: "
                  "(0x1) what=\"x\"\n"
                  "           <...>-363     [000] DNZff    53.7: "
                  "ibv_alloc_pd_ret: (0x1 <- 0x2) ret=0x1 x=a b\n"
                  "           <...>-363     [000] DNZff    53.7: wc: (x) "
                  "qpn=0x2a opcode=2\n"
                  "<...>-363 [000] DNZff 53.7: wc: (rxe_cq_post) qpn=0x2a "
                  "opcode=2 status=0 byte_len=8 flags=0x0 imm=0x0 junk")
        got = kernel.parse_ktrace(forged)
        self.assertEqual([e["_fn"] for e in got], ["kwc"], got)


class ExtendedRequests(checklib.Case):
    """The extended API, and lists of requests (issue 25): the records do
    not depend on the API.  ext-loopback.txt: a real trace of a small
    program on one guest, its RC QP connected to itself, made by
    ibv_create_qp_ex on a CQ of ibv_create_cq_ex; one
    ibv_wr_start..ibv_wr_complete of four requests (SEND with immediate,
    WRITE, FETCH_ADD, CMP_SWAP), then one ibv_post_send of a chained SEND
    and CMP_SWAP, its completions taken by ibv_start_poll and
    ibv_next_poll."""

    @classmethod
    def setUpClass(cls):
        cls.loop = trace("ext-loopback.txt")
        cls.posts = [e for e in cls.loop if e["_fn"] == "ibv_post_send"]

    def test_ktrace_ex_objects_are_objects(self):
        qps = [e for e in self.loop if e["_fn"] == "ibv_create_qp"]
        cqs = [e for e in self.loop if e["_fn"] == "ibv_create_cq"]
        why = "%s %s" % (qps, cqs)
        self.assertEqual(len(qps), 1, why)
        self.assertEqual(qps[0].get("qpn"), "0x12", why)
        self.assertEqual(qps[0].get("type"), "2", why)
        self.assertEqual(len(cqs), 1, why)
        self.assertEqual(qps[0].get("send_cq"), cqs[0]["_ret"], why)
        self.assertFalse(any(kernel.leaks(self.loop)), why)

    def test_ktrace_each_request_a_post(self):
        got = [(text.num(e["opcode"]), e["n"], e["_ret"], text.num(e["len"]))
               for e in self.posts]
        self.assertEqual(got, [(3, "4", "0", 6), (0, "4", "0", 100),
                               (6, "4", "0", 8), (5, "4", "0", 8),
                               (2, "2", "0", 16), (5, "2", "0", 8)], got)

    def test_ktrace_ex_request_fields(self):
        posts = self.posts
        self.assertEqual(posts[0]["imm"], "0x11223344", posts)
        self.assertEqual(text.num(posts[3]["swap"]), 0x0123456789abcdef,
                         posts)
        self.assertEqual(posts[3]["raddr"], posts[2]["raddr"], posts)
        self.assertEqual(text.num(posts[2]["cmp_add"]), 1, posts)
        self.assertEqual(text.num(posts[5]["cmp_add"]), 7, posts)
        self.assertEqual(text.num(posts[5]["swap"]), 8, posts)
        self.assertEqual(posts[5]["raddr"], posts[3]["raddr"], posts)
        self.assertEqual(posts[5]["rkey"], posts[3]["rkey"], posts)

    def test_ktrace_start_and_next_poll_take_completions(self):
        wcs = [text.num(e["opcode"]) for e in self.loop if e["_fn"] == "wc"]
        self.assertEqual(wcs, [128, 0, 1, 4, 3, 128, 0, 3], wcs)

    def test_ktrace_one_receive_is_one(self):
        # A receive list's next pointers are read one through the other:
        # after a NULL the kernel's failed read leaves the buffer's old
        # bytes (n3 here).
        recvs = [e for e in self.loop if e["_fn"] == "ibv_post_recv"]
        self.assertEqual([e["n"] for e in recvs], ["1", "1"], recvs)

    def test_ktrace_ex_abort_and_failure(self):
        # An abort posts nothing; a complete that failed posts with its
        # result.
        line = ("           <...>-9     [000] DNZff    1.0: %s: (0x1) "
                "qp=0x5 qpn=0x12 ")
        aborted = kernel.parse_ktrace("\n".join([
            line % "ibv_wr_start" + "flags=0x0",
            line % "ibv_wr_send" + "flags=0x2",
            line % "ibv_wr_abort" + "flags=0x2",
            line % "ibv_wr_start" + "flags=0x0",
            line % "ibv_wr_rdma_read" + "flags=0x2 rkey=0x7 raddr=0x1000",
            line % "ibv_wr_set_sge" + "flags=0x2 lkey=0x3 laddr=0x2000 len=8",
            line % "ibv_wr_complete" + "flags=0x2",
            "           <...>-9     [000] DNZff    1.0: ibv_wr_complete_ret: "
            "(0x1 <- 0x2) ret=12"]))
        self.assertEqual([(e["_fn"], e["opcode"], e["_ret"], e["raddr"],
                           e["len"]) for e in aborted],
                         [("ibv_post_send", "4", "12", "0x1000", "8")],
                         aborted)


class ExtendedRuns(checklib.Case):
    """ext.c's real runs (tests/grader/seeds/ext.c, graded: ext-client.txt,
    p2's client; ext-server.txt, p1's server): what the judges read of
    them is what they read of the reference's."""

    @classmethod
    def setUpClass(cls):
        cls.ext_cli = trace("ext-client.txt")
        cls.ext_srv = trace("ext-server.txt")

    def test_ktrace_ex_client_made_what_the_reference_made(self):
        made = {e["_fn"] for e in self.ext_cli if kernel.created(e["_ret"])}
        why = "created: %s" % sorted(made)
        self.assertTrue(WANT <= made, why)
        self.assertFalse(any(kernel.leaks(self.ext_cli)), why)

    def test_ktrace_ex_client_posts(self):
        self.assertEqual(
            [text.num(e["opcode"]) for e in self.ext_cli
             if e["_fn"] == "ibv_post_send" and e["_ret"] == "0"],
            [2, 3, 0, 4, 1, 6, 5],
            [e for e in self.ext_cli if e["_fn"] == "ibv_post_send"])

    def test_ktrace_ex_notices_after_the_completions(self):
        assert_notices_after_completions(self, self.ext_cli)

    def test_ktrace_ex_server_receives_one_list_before_the_barrier(self):
        srv = self.ext_srv
        assert_receives_before_barrier(self, srv, 3)
        self.assertEqual(
            len([e for e in srv if e["_fn"] == "ibv_post_recv"]), 1,
            "the receives in more than one post")


def result(core, two):
    return {"score": core, "max_score": 20, "parts": {
        "1": {"score": core, "max": 20}, "2": {"score": two, "max": 10}}}


class Progress(checklib.Case):
    def test_progress_counts_every_part(self):
        # The progress line counts a result below full marks in any part:
        # the core full and part two short is below (it once counted the
        # core only).
        why = "below_full: %s" % [course.below_full(result(*x)) for x in
                                  ((20, 7), (18, 10), (20, 10))]
        self.assertTrue(course.below_full(result(20, 7)), why)
        self.assertTrue(course.below_full(result(18, 10)), why)
        self.assertFalse(course.below_full(result(20, 10)), why)
        self.assertTrue(course.below_full({"score": 18, "max_score": 20}),
                        why)

    def test_progress_never_goes_back(self):
        # The progress count never goes back: a student whose rounds run
        # (its result.json taken away until they are merged) still
        # counts, and one seen graded once stays counted (it went 7/8,
        # 5/8, 1/8 in a batch with rounds).
        with tempfile.TemporaryDirectory() as t:
            for name, files in (("a", ["result.json"]),
                                ("b", ["round-1/result.json"]), ("c", [])):
                for f in files:
                    os.makedirs(os.path.dirname(os.path.join(t, name, f)),
                                exist_ok=True)
                    with open(os.path.join(t, name, f), "w") as out:
                        json.dump(result(20, 10), out)
                os.makedirs(os.path.join(t, name), exist_ok=True)
            seen = set()
            first = course.tally(t, seen)
            os.remove(os.path.join(t, "b", "round-1", "result.json"))
            second = course.tally(t, seen)
        why = "tally: %s then %s" % (first, second)
        self.assertEqual(first, (2, 1, 0, 0), why)
        self.assertEqual(second, (2, 0, 0, 0), why)


class Icrc(checklib.Case):
    """The wire: every packet of a real capture has a right ICRC; one
    changed byte of payload, and that packet no longer counts."""

    @classmethod
    def setUpClass(cls):
        cls.pcap = os.path.join(HERE, "..", "..", "docs", "runs",
                                "demo.pcap")
        with open(cls.pcap, "rb") as f:
            cls.data = f.read()
        cls.good = wire.parse_pcap(cls.pcap)
        # Every RoCEv2 packet, its ICRC right or not: the count the
        # right ones are held to.
        real = wire.icrc_ok
        wire.icrc_ok = lambda *a: True
        try:
            cls.every = wire.parse_pcap(cls.pcap)
        finally:
            wire.icrc_ok = real

    def test_icrc_of_every_real_packet_right(self):
        good, every = self.good, self.every
        why = "%d of %d" % (len(good or []), len(every or []))
        self.assertTrue(good, why)
        self.assertEqual(len(good), len(every), why)

    def test_icrc_refuses_a_changed_byte(self):
        good = self.good
        data = bytearray(self.data)
        w = [x for x in good if x["len"] > 0][0]
        recs = list(wire.pcap_records(bytes(data)))
        # The payload's first byte of that frame, found in the file.
        frame = recs[w["frame"] - 1][2]
        at = bytes(data).find(frame) + len(frame) - 4 - w["len"]
        data[at] ^= 1
        with tempfile.TemporaryDirectory() as t:
            tmp = os.path.join(t, "grader-icrc.pcap")
            with open(tmp, "wb") as f:
                f.write(data)
            left = wire.parse_pcap(tmp)
        why = "%d packets left of %d" % (len(left), len(good))
        self.assertEqual(len(left), len(good) - 1, why)
        self.assertNotIn(w["frame"], [x["frame"] for x in left], why)


def pairs(tr, user, kfn, fields):
    """Each user-space record of user beside the kernel's of kfn, with
    the fields that differ (numbers compared as numbers)."""
    us = [e for e in tr if e["_fn"] == user and e["_ret"] not in
          ("", "(nil)", "0x0")]
    ks = [e for e in tr if e["_fn"] == kfn]
    return len(us) == len(ks) and us and [
        (k, u) for u, k in zip(us, ks) if any(
            text.num(u.get(a), u.get(a)) != text.num(k.get(b), k.get(b))
            for a, b in fields)]


MODIFY = [(f, f) for f in (
    "state", "mask", "access", "path_mtu", "dest_qpn", "rq_psn", "sq_psn",
    "sgid_idx", "hop_limit", "dgid", "timeout", "retry_cnt", "rnr_retry",
    "min_rnr_timer", "max_rd_atomic", "max_dest_rd_atomic", "pkey_index",
    "is_global", "qpn")]


class KernelFacts(checklib.Case):
    """The kernel's own record of the objects (grader/guest/kfacts.c,
    issue 39): kfacts-reference-server.txt, the reference server's run of
    a real grading (kernel 6.1.0-56), where the kprobes' fields (offsets
    from the kernel's BTF) must say what the uprobes read of the same
    calls."""
    KFACTS = "kfacts-reference-server.txt"

    @classmethod
    def setUpClass(cls):
        cls.kref = trace(cls.KFACTS)

    def as_made(self, user, kfn, fields):
        diff = pairs(self.kref, user, kfn, fields)
        self.assertEqual(diff, [], diff)

    def test_kfacts_mr_as_the_call_made_it(self):
        self.as_made("ibv_reg_mr", "k_mr", [
            ("lkey", "lkey"), ("rkey", "rkey"), ("addr", "start"),
            ("iova", "iova"), ("len", "len"), ("access", "access")])

    def test_kfacts_qp_as_the_call_made_it(self):
        self.as_made("ibv_create_qp", "k_qp", [
            ("qpn", "qpn"), ("type", "type"),
            ("max_send_wr", "max_send_wr"), ("sig_all", "sig_all")])

    def test_kfacts_cq_as_the_call_made_it(self):
        self.as_made("ibv_create_cq", "k_cq", [("cqe", "cqe")])

    def test_kfacts_modify_as_the_call_made_it(self):
        self.as_made("ibv_modify_qp", "k_modify", MODIFY)

    def test_kfacts_objects_made(self):
        self.assertEqual(
            sorted(kernel.KMADE[e["_fn"]] for e in self.kref
                   if kernel.kmade(e)),
            ["CQ", "MR", "MR", "PD", "QP"],
            [e for e in self.kref if e["_fn"] in kernel.KMADE])

    def test_kfacts_reference_releases_all(self):
        got = kernel.kleaks(self.kref)
        self.assertEqual(got, ({}, []), got)

    def test_kfacts_kernel_cleanup_is_a_leak(self):
        # Destroys the program never made: the kernel destroyed its
        # objects when its files closed (why 1, RDMA_REMOVE_CLOSE).  Each
        # is a leak.
        closed = kernel.parse_ktrace(kt(self.KFACTS).replace("why=0",
                                                             "why=1"))
        live, bad = kernel.kleaks(closed)
        self.assertEqual(sorted(v[0] for v in live.values()),
                         ["CQ", "MR", "MR", "PD", "QP"], (live, bad))
        self.assertFalse(bad, (live, bad))

    def test_kfacts_refused_destroy_said(self):
        # A destroy the kernel refused (EBUSY, a PD with children): said,
        # and the PD stays.
        busy = kt(self.KFACTS).splitlines()
        i = next(i for i, x in enumerate(busy) if " k_pd_free: " in x)
        busy[i + 2] = busy[i + 2].replace("ret=0", "ret=-16")
        del busy[i:i + 2]
        live, bad = kernel.kleaks(kernel.parse_ktrace("\n".join(busy)))
        self.assertEqual([v[0] for v in live.values()], ["PD"], (live, bad))
        self.assertEqual(len(bad), 1, (live, bad))
        self.assertIn("-16", bad[0], (live, bad))

    def test_kfacts_user_calls_make_nothing(self):
        # Calls that never reached the kernel (a forged table of
        # operations): the user-space records alone make nothing.
        user_only = kernel.parse_ktrace("\n".join(
            x for x in kt(self.KFACTS).splitlines() if " k_" not in x))
        self.assertFalse(any(kernel.kmade(e) for e in user_only),
                         "a user-space record made a kernel object")
        self.assertTrue(any(kernel.created(e["_ret"]) for e in user_only
                            if e["_fn"] == "ibv_create_qp"),
                        "the user-space records created no QP")


def queue(depth, ops, sig_all=0):
    """The send queue by the verbs' rules, on traces of the shape
    parse_ktrace makes: a QP of depth DEPTH, then "u"/"s" (a post,
    unsignaled or signaled: a SEND, or "i" a SEND with immediate) and "w"
    (a send completion polled)."""
    tr = [{"_fn": "k_qp", "_ret": "0xffff888000005000", "qpn": "0x11",
           "max_send_wr": str(depth), "sig_all": str(sig_all)}]
    for op in ops:
        if op == "w":
            tr.append({"_fn": "wc", "_ret": "0", "qpn": "0x11",
                       "opcode": "0"})
        else:
            tr.append({"_fn": "ibv_post_send", "_ret": "0", "qpn": "0x11",
                       "opcode": "3" if op == "i" else "2",
                       "flags": "0" if op == "u" else "2"})
    return [(sendq.step_of(p), h and sendq.step_of(h), d)
            for p, h, d in sendq.overflows(tr)]


class SendQueue(checklib.Case):
    def test_sendq_unsignaled_holds_its_slot(self):
        got = queue(1, "ui")
        self.assertEqual(got, [("send_imm", "send", 1)], got)

    def test_sendq_signaled_and_polled_frees(self):
        got = queue(1, "swiw")
        self.assertEqual(got, [], got)

    def test_sendq_signaled_completion_frees_unsignaled_before(self):
        got = queue(2, "uswusw")
        self.assertEqual(got, [], got)

    def test_sendq_unpolled_signaled_fills_it(self):
        got = queue(2, "ssi")
        self.assertEqual(got, [("send_imm", None, 2)], got)

    def test_sendq_sq_sig_all_signals_each(self):
        got = queue(1, "uwuw", sig_all=1)
        self.assertEqual(got, [], got)

    def test_sendq_receive_completion_frees_nothing(self):
        self.assertEqual(queue(1, "u") + queue(1, "s"), [])
        self.assertEqual(len(sendq.overflows(
            [{"_fn": "k_qp", "_ret": "0xffff888000005000", "qpn": "0x11",
              "max_send_wr": "1", "sig_all": "0"},
             {"_fn": "ibv_post_send", "_ret": "0", "qpn": "0x11",
              "opcode": "2", "flags": "2"},
             {"_fn": "wc", "_ret": "0", "qpn": "0x11", "opcode": "128"},
             {"_fn": "ibv_post_send", "_ret": "0", "qpn": "0x11",
              "opcode": "3", "flags": "2"}])), 1)

    def test_sendq_no_depth_no_verdict(self):
        # Traces recorded before the probes read the depth: nothing
        # judged.
        self.assertEqual(sendq.overflows(trace("reference-client.txt")), [])
        self.assertEqual(sendq.overflows(trace("notice_early-client.txt")),
                         [])


def events(*evs, sig_all=0):
    """Completions and receives per QP, by the verbs' rules (issue 39), on
    traces of parse_ktrace's shape: QPs 0x11 (the judged one) and 0x12 (a
    decoy or a loopback), then events; "N" the notice (a TCP send)."""
    tr = [{"_fn": "ibv_create_qp", "_ret": "0x5000", "qpn": "0x11",
           "max_send_wr": "4", "sig_all": str(sig_all)},
          {"_fn": "ibv_create_qp", "_ret": "0x6000", "qpn": "0x12",
           "max_send_wr": "4", "sig_all": "0"}]
    for kind, qpn, op, arg in evs:
        if kind == "post":
            tr.append({"_fn": "ibv_post_send", "_ret": "0", "qpn": qpn,
                       "opcode": str(op), "flags": arg})
        elif kind == "wc":
            tr.append({"_fn": "wc", "_ret": "0", "qpn": qpn,
                       "opcode": str(op), "status": arg})
        elif kind == "recv":
            tr.append({"_fn": "ibv_post_recv", "_ret": "0", "qpn": qpn,
                       "n": str(op)})
        else:
            tr.append({"_fn": "tcp", "_ret": "1", "daddr": SRV})
    return tr


def sent_early(tr, ops, qpn=0x11):
    at = [i for i, e in enumerate(tr) if e["_fn"] == "tcp"][-1]
    return kernel.notice_early(tr, at, ops, qpn)


def two_writes(cq2):
    """A poll names no CQ: with two, a completion counts as taken only
    from the poll that must have taken it.  The real WRITE (QP 0x11)
    completes first, then a loopback WRITE (QP 0x12); one poll takes one,
    the notice goes, another poll takes one.  On one CQ the first poll
    took the real WRITE's; on two, it may have been the loopback's."""
    head = "           <...>-359     [000] DNZff    42.5: "
    lines = []
    for qpn, cq in (("0x12", cq2), ("0x11", "0xa")):
        lines += ["ibv_create_qp: (0x1) pd=0x1 type=2 send_cq=%s "
                  "recv_cq=%s" % (cq, cq),
                  "ibv_create_qp_ret: (0x1 <- 0x2) ret=0x5%s qpn=%s" % (
                      qpn[2:], qpn)]
    for qpn in ("0x11", "0x12"):
        lines += ["ibv_post_send: (0x1) qpn=%s next=0x0 opcode=0 "
                  "flags=0x2" % qpn, "ibv_post_send_ret: (0x1 <- 0x2) ret=0"]
    for qpn in ("0x11", "0x12"):
        lines.append("wc: (rxe_cq_post+0x0/0x190 [rdma_rxe]) qpn=%s "
                     "opcode=1 status=0 byte_len=8 flags=0x0 imm=0x0" % qpn)
    lines += ["ibv_poll_cq_ret: (0x1 <- 0x2) ret=1",
              "tcp: (tcp_sendmsg_locked+0x0/0xc20) daddr=0x10200c0 size=5",
              "tcp_ret: (0x1 <- 0x2) ret=5",
              "ibv_poll_cq_ret: (0x1 <- 0x2) ret=1"]
    tr = kernel.parse_ktrace("\n".join(head + x for x in lines))
    at = [i for i, e in enumerate(tr) if e["_fn"] == "tcp"][0]
    return kernel.notice_early(tr, at, [verbs.WC_RDMA_WRITE], 0x11)


class Completions(checklib.Case):
    def test_completion_signaled_completes_unsignaled_before(self):
        chained = events(("post", "0x11", verbs.WR_FETCH_ADD, "0x0"),
                         ("post", "0x11", verbs.WR_CMP_SWP, "0x2"),
                         ("wc", "0x11", verbs.WC_COMP_SWAP, "0"),
                         ("tcp",) * 4)
        why = kernel.taken(chained, 0x11)
        self.assertIs(sent_early(chained, ATOMICS), False, why)
        self.assertTrue(kernel.good_wcs(chained, verbs.WC_FETCH_ADD, 0x11),
                        why)

    def test_completion_unsignaled_alone_never_completes(self):
        alone = events(("post", "0x11", verbs.WR_FETCH_ADD, "0x0"),
                       ("post", "0x11", verbs.WR_CMP_SWP, "0x0"),
                       ("tcp",) * 4)
        self.assertIs(sent_early(alone, ATOMICS), True)
        self.assertFalse(kernel.good_wcs(alone, verbs.WC_FETCH_ADD, 0x11))

    def test_completion_sq_sig_all_signals_each(self):
        all_sig = events(("post", "0x11", verbs.WR_FETCH_ADD, "0x0"),
                         ("wc", "0x11", verbs.WC_FETCH_ADD, "0"),
                         ("post", "0x11", verbs.WR_CMP_SWP, "0x0"),
                         ("wc", "0x11", verbs.WC_COMP_SWAP, "0"),
                         ("tcp",) * 4, sig_all=1)
        self.assertIs(sent_early(all_sig, ATOMICS), False,
                      kernel.taken(all_sig, 0x11))

    def test_completion_failed_unsignaled_completes_nothing(self):
        failed_first = events(("post", "0x11", verbs.WR_FETCH_ADD, "0x0"),
                              ("post", "0x11", verbs.WR_CMP_SWP, "0x2"),
                              ("wc", "0x11", verbs.WC_FETCH_ADD, "5"),
                              ("wc", "0x11", verbs.WC_COMP_SWAP, "5"),
                              ("tcp",) * 4)
        self.assertIs(sent_early(failed_first, ATOMICS), True,
                      kernel.taken(failed_first, 0x11))

    def test_completion_of_another_qp_does_not_count(self):
        loopback = events(("post", "0x12", verbs.WR_WRITE, "0x2"),
                          ("wc", "0x12", verbs.WC_RDMA_WRITE, "0"),
                          ("post", "0x11", verbs.WR_WRITE, "0x2"),
                          ("tcp",) * 4,
                          ("wc", "0x11", verbs.WC_RDMA_WRITE, "0"))
        self.assertIs(sent_early(loopback, [verbs.WC_RDMA_WRITE]), True)
        self.assertIs(sent_early(loopback, [verbs.WC_RDMA_WRITE], 0x12),
                      False)

    def test_receives_of_another_qp_do_not_count(self):
        decoy = events(("recv", "0x12", 3, None), ("tcp",) * 4,
                       ("recv", "0x11", 3, None))
        self.assertEqual(kernel.recvs_before(decoy, len(decoy) - 1, 0x11), 0)
        self.assertEqual(kernel.recvs_before(decoy, len(decoy) - 1, 0x12), 3)

    def test_completion_taken_only_when_certain_across_cqs(self):
        why = (two_writes("0xa"), two_writes("0xb"))
        self.assertIs(two_writes("0xa"), False, why)
        self.assertIs(two_writes("0xb"), True, why)


class FakeSide:
    def __init__(self, who, tr, lines=None):
        self.who, self.trace, self.lines = who, tr, lines or {}

    def val(self, step, key):
        return self.lines.get((step, key))

    def calls(self, fn, ok=None):
        return [e for e in self.trace if e["_fn"] == fn and
                (ok is None or ok(e))]


def rtr(qpn, dest):
    """The kernel's records of a QP made and taken to RTR (kfacts.c):
    k_modify names the QP by the ib_qp pointer that k_qp returned."""
    qp = "0xffff888000%06x" % int(qpn, 16)
    return [{"_fn": "k_qp", "_ret": qp, "qpn": qpn},
            {"_fn": "k_modify", "_ret": "0", "qp": qp,
             "state": str(verbs.QPS_RTR), "dest_qpn": dest}]


class JudgedQp(checklib.Case):
    def test_judged_qp_is_the_connected_one(self):
        # The judged QP: the one the reference received, else the one
        # both students connected; a decoy made last is not it.
        srv = FakeSide("student", events() + rtr("0x11", "0x31") +
                       rtr("0x12", "0x12"))
        ref = FakeSide("ref", [], {("exchange", "remote_qpn"): "0x000011"})
        # The client connects its decoy 0x33 to the server's decoy last.
        cli = FakeSide("student", rtr("0x31", "0x11") + rtr("0x33", "0x12"))
        why = (peer.judged_qpn(srv, ref), peer.judged_qpn(srv, cli),
               peer.judged_qpn(cli, srv))
        self.assertEqual(peer.judged_qpn(srv, ref), 0x11, why)
        self.assertEqual(peer.judged_qpn(srv, cli), 0x11, why)
        self.assertEqual(peer.judged_qpn(cli, srv), 0x31, why)
        self.assertEqual(peer.qpn_of(srv), 0x12, why)


if __name__ == "__main__":
    checklib.run()
