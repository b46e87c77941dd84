#!/usr/bin/env bun
// gw — the terminal client of AI Gateway. `bun cli/index.ts --help` or `bunx gw --help`.
import { run } from './program'

process.exitCode = await run(process.argv)
