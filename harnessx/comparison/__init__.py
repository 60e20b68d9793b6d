"""Compare harnesses on splits no one selected on: scorecards with CIs, paired differences, transfer."""
