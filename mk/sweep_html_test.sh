#!/bin/sh
# placeholder until the HTML report exists
echo "test-sweep-html: not yet"
