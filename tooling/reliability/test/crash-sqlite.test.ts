import { describeCrashes } from './support/crash-suite.js';

// A child process on the SQLite backend, killed with SIGKILL at random moments (see support/crash-suite.ts).
describeCrashes('sqlite');
