/*
 * The lab's steps, in the order they run, and the points each is worth
 * when graded.  The one home of this list: lab/driver.c runs the steps
 * from it, and the grader, the tests and the docs checker read it.
 *
 *	LAB_STEP(name, points)
 */
LAB_STEP(open_device, 2)
LAB_STEP(create_resources, 2)
LAB_STEP(qp_to_init, 2)
LAB_STEP(exchange, 2)
LAB_STEP(connect, 3)
LAB_STEP(send, 2)
LAB_STEP(send_imm, 2)
LAB_STEP(write, 3)
LAB_STEP(teardown, 2)
