#!/usr/bin/env node
// tsx is registered here rather than with --import so the command works from any directory.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
