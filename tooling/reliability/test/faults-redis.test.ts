import { describeFaults } from './support/fault-suite.js';

// RedisCheckpointer behind a TCP fault proxy (cut, stall, refuse) in front of the real server.
describeFaults('redis');
