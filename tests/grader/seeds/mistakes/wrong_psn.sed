# RTR uses rq_psn 0 instead of the peer's advertised PSN.
# step: connect
# hint: PSN
s/\.rq_psn = rem->psn,/.rq_psn = 0,/
