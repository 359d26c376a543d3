/** A user's profile; the row is created on the user's first authenticated request. */
export interface User {
  userId: string;
  roles: string[];
  displayName: string | null;
  email: string | null;
  regionId: number | null;
  segment: string | null;
  createdAt: Date;
  updatedAt: Date | null;
}

/** A profile as PUT replaces it: absent fields are removed. */
export interface ProfileChanges {
  displayName?: string;
  email?: string;
  regionId?: number;
  segment?: string;
}
