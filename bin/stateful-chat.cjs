#!/usr/bin/env node
require("../out/cli.js");
