"""The retail environment (τ²-bench retail style): a customer, 16 tools over an orders database, a
written policy, and a suite of feasible tasks paired with blocked variants. Entry point:
`harnessx.envs.retail.suite.RetailSuite`."""
