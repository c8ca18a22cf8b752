# The in-cluster controller (issue 12): watches GpuPolicy objects, plans and
# applies each as its mode and window allow, keeps its state in the API
# server, serves /healthz, /readyz, /metrics and the reviewer page.
set(AREA_SOURCES policy_view.cc)
set(AREA_DEPS kubeon_plan kubeon_policy kubeon_model Threads::Threads)
set(AREA_TESTS policy_view_test.cc)
