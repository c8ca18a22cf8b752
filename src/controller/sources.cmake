# The in-cluster controller (issue 12): watches GpuPolicy objects, plans and
# applies each as its mode and window allow, keeps its state in the API
# server, serves /healthz, /readyz, /metrics and the reviewer page
# (reviewer_api.h: web/ compiled in by cmake/embed_web.cmake, JSON API,
# writes authorized by TokenReview + SubjectAccessReview, authenticator.h).
set(AREA_SOURCES policy_view.cc authenticator.cc history_sources.cc reviewer_api.cc)
set(AREA_DEPS kubeon_plan kubeon_policy kubeon_model kubeon_audit kubeon_kube kubeon_apply kubeon_mig kubeon_metrics
    PkgConfig::HTTPLIB Threads::Threads)
set(AREA_TESTS policy_view_test.cc authenticator_test.cc history_sources_test.cc reviewer_api_test.cc)
