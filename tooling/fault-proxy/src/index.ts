export { type FaultProxy, type FaultProxyStats, type ProxyTarget, startFaultProxy } from './fault-proxy.js';
