#!/usr/bin/env node
/** The `durable-agents` binary: the command line of src/cli/program.ts on this process. */
import { main } from "./program.js";

process.exitCode = await main(process.argv);
