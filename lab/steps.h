/*
 * The lab's steps, in the order they run, the points each is worth when
 * graded, and the part of the lab it belongs to.  The one home of this
 * list: lab/driver.c runs the steps from it, and the grader, the tests
 * and the docs checker read it.
 *
 *	LAB_STEP(name, points, part)
 *	LAB_CHECK(name, points, part)
 *
 * Part 1 is the core (20 points); part 2 adds RDMA READ, WRITE with
 * immediate and atomics, scored on its own line.  Teardown is core: it
 * runs last whatever the parts.  A check is graded like a step but is no
 * step of the program: part three's loss, earned when the program's
 * client, against the reference's server on a wire that loses packets,
 * passes every step it passes on a clean one (docs/handout.md, 7.8).
 */
#ifndef LAB_CHECK
#define LAB_CHECK(name, points, part)
#endif
#ifndef LAB_PARTS
/*
 * The parts this course does: 1 (the core), 2 (the core and part two) or
 * 3 (both, and part three: a wire that loses packets, exercises that add
 * no step, and the check loss; docs/handout.md section 7).  The one place an
 * instructor chooses: the program runs, make dist hands out and the
 * grader grades the steps of parts 1..LAB_PARTS.
 */
#define LAB_PARTS 2
#endif
LAB_STEP(open_device, 2, 1)
LAB_STEP(create_resources, 2, 1)
LAB_STEP(qp_to_init, 2, 1)
LAB_STEP(exchange, 2, 1)
LAB_STEP(connect, 3, 1)
LAB_STEP(send, 2, 1)
LAB_STEP(send_imm, 2, 1)
LAB_STEP(write, 3, 1)
LAB_STEP(read, 3, 2)
LAB_STEP(write_imm, 3, 2)
LAB_STEP(atomic, 4, 2)
LAB_STEP(teardown, 2, 1)
LAB_CHECK(loss, 4, 3)
