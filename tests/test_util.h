// test_util.h — small helpers shared by the format-library tests.
#ifndef MXSIM_TEST_UTIL_H
#define MXSIM_TEST_UTIL_H

#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>

extern "C" {
#include "formats/mx_block.h"
#include "formats/mx_format.h"
}

// A tensor shape from its dimensions, C order.
inline mx_shape make_shape(std::initializer_list<size_t> d)
{
    mx_shape s;
    std::memset(&s, 0, sizeof s);
    s.ndim = (int)d.size();
    int i = 0;
    for (size_t v : d) s.dim[i++] = v;
    return s;
}

// A format of the table (or an eXmY name); a failed look-up fails the test.
inline mx_format lookup_format(const char *name)
{
    mx_format f;
    EXPECT_EQ(mx_format_lookup(name, &f), 0) << name;
    return f;
}

#endif
