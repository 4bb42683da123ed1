// The ids of a club's commerce setup on the embedded backend, derived from the club's id: provisioning twice
// finds what the first run made, and the demo clubs' records (src/tenants/demo.ts) can name them without
// reaching into the embedded backend.
export function clubSetupIds (tenantId: string) {
  const code = tenantId.replace(/-/g, '_')
  return {
    region: `reg_${code}`,
    salesChannel: `sc_${code}`,
    apiKey: `apk_${code}`,
    publishableKey: `pk_${code}`,
    stockLocation: `sloc_${code}`,
    locationAddress: `laddr_${code}`,
    fulfillmentSet: `fuset_${code}`,
    serviceZone: `serzo_${code}`,
    shippingProfile: `sp_${code}`,
    shippingOption: (name: string) => `so_${code}_${name}`,
    serviceUser: `user_service_${code}`,
  }
}
