set(AREA_SOURCES suggest.cc window.cc yaml_documents.cc gpu_policy.cc policy_overlap.cc)
set(AREA_DEPS kubeon_model kubeon_net yaml-cpp)
set(AREA_TESTS suggest_test.cc window_test.cc yaml_documents_test.cc gpu_policy_test.cc policy_overlap_test.cc)
