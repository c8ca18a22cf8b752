# kubeon_inputs: what a plan is made from (plan_inputs.h: the catalog, the
# cluster from a file or the API, the DCGM history from files or
# Prometheus, the prices) and planning each policy on them (plan_each.h).  Below both the
# commands (cli/) and the controller, which read and plan the same way.
set(AREA_SOURCES plan_inputs.cc plan_each.cc)
set(AREA_DEPS kubeon_model kubeon_net kubeon_mig kubeon_policy kubeon_metrics kubeon_plan kubeon_kube)
set(AREA_TESTS plan_each_test.cc)
