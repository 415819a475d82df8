/** An e-mail address of a user (wire form). */
export interface ContactChannel {
  id: string;
  user_id: string;
  type: 'email';
  value: string;
  is_primary: boolean;
  is_verified: boolean;
  used_for_auth: boolean;
}

/** What adding a contact channel takes. */
export interface ContactChannelCreate {
  /** A uuid or `me`; clients may only create their own. */
  user_id: string;
  type: 'email';
  value: string;
  used_for_auth: boolean;
  is_primary?: boolean;
  /** Server and admin only. */
  is_verified?: boolean;
}

/** What may change in a contact channel. */
export interface ContactChannelUpdate {
  type?: 'email';
  /** Changing the value without sending `is_verified` resets verification. */
  value?: string;
  used_for_auth?: boolean;
  is_primary?: boolean;
  /** Server and admin only. */
  is_verified?: boolean;
}
