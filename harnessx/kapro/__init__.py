"""KAPRO / KAware (digest §2): does an agent know which tools a task needs, and does it act so?

A knowing probe (mark each offered tool necessary or not; nothing runs) and an acting run
(function calling against replayed tool responses) in one rollout, scored against the required
tool set T (the P1 tools): J, Acc_know, Acc_act, KAS, overuse/underuse, C̄_KA, quadrants, DirGap,
pass rate, tool calls, per subspace and hop, each with valid n and a bootstrap CI.
"""
