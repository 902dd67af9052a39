"""Evidence of what happened, never of what a program printed about it:
the wire (wire), the guest kernel's trace (kernel), and the programs'
lines and guests' facts (peer)."""
