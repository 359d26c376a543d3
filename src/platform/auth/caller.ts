/** Roles a token may grant (the `roles` claim); other strings in the claim are ignored. */
export const ROLES = ['CUSTOMER', 'ADMIN'] as const;
export type Role = (typeof ROLES)[number];

/** The authenticated user of a request, read from a verified bearer token. */
export interface Caller {
  /** The token's `sub`: a uuid in lower case. */
  userId: string;
  /** Known roles of the token, never empty. */
  roles: Role[];
}

export function isRole(value: unknown): value is Role {
  return (ROLES as readonly unknown[]).includes(value);
}

export function isAdmin(caller: Caller): boolean {
  return caller.roles.includes('ADMIN');
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the bearer guard on authenticated /api routes; read it with `@CurrentCaller()`. */
    caller?: Caller;
  }
}
