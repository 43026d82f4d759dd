#include <gtest/gtest.h>

#include "core/analysis/function_name.h"

using namespace cs::core;

TEST(FunctionName, ResumeFunctionMapsToTheUsersFunction) {
    // the name torch 2.x gives the rest of forward after a break at line 14
    const UserFunction f = userFunction("torch_dynamo_resume_in_forward_at_14");
    EXPECT_EQ(f.name, "forward");
    EXPECT_EQ(f.afterLine, 14);
    EXPECT_EQ(functionLabel("torch_dynamo_resume_in_forward_at_14"),
              "forward (after the break at line 14)");
    EXPECT_EQ(functionName("torch_dynamo_resume_in_forward_at_14"), "forward");
}

TEST(FunctionName, NestedResumeKeepsTheLatestBreak) {
    const UserFunction f =
        userFunction("torch_dynamo_resume_in_torch_dynamo_resume_in_my_fn_at_14_at_20");
    EXPECT_EQ(f.name, "my_fn");
    EXPECT_EQ(f.afterLine, 20);
}

TEST(FunctionName, QualifiedResumeKeepsTheClass) {
    EXPECT_EQ(functionLabel("Net.torch_dynamo_resume_in_forward_at_7"),
              "Net.forward (after the break at line 7)");
}

TEST(FunctionName, OtherNamesUnchanged) {
    EXPECT_EQ(functionLabel("forward"), "forward");
    EXPECT_EQ(functionLabel(""), "");
    EXPECT_EQ(userFunction("forward").afterLine, 0);
    // looks like a resume name but has no line: left as it is
    EXPECT_EQ(functionLabel("torch_dynamo_resume_in_forward"), "torch_dynamo_resume_in_forward");
    EXPECT_EQ(functionLabel("torch_dynamo_resume_in_forward_at_x"),
              "torch_dynamo_resume_in_forward_at_x");
}
