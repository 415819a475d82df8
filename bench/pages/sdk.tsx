/** The official SDK's bench page with `@stackframe/js` as the benchmarks have long compared it (2.8.3). */
import { scriptStart } from './t0.js';
import { StackClientApp } from '@stackframe/js';
import { marks } from './common.js';
import { startSdkPage, type SdkAppClass } from './sdkPage.js';

Object.assign(marks, scriptStart);
startSdkPage(StackClientApp as unknown as SdkAppClass);
