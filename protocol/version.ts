/** The package version; kept in step with package.json by a test. */
export const AUTHBROKER_VERSION = '0.1.0';

/**
 * `x-stack-client-version`. The service validates it as `{platform} @{package}@{version}`
 * (an `@`-prefixed package name), so ours is written that way.
 */
export const CLIENT_VERSION_HEADER_VALUE = `js @authbroker@${AUTHBROKER_VERSION}`;
