/**
 * Whose data a query is: the signed-in user's, the project owner's (admin), the project's (the
 * same for everyone), or the broker's own state. A user query after a sign-in names new data.
 */
export type QueryScope = 'user' | 'admin' | 'project' | 'broker';
