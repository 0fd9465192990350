import { describeWorkerChaos } from './support/worker-chaos-suite.js';

describeWorkerChaos('sqlite');
