// The translation unit that builds the tests' precompiled header
// (kubeon_test_pch, cmake/kubeon_gtest.cmake); it holds no code of its own.
