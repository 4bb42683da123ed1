/** The phone's last four digits: enough to follow it in the log, not enough to reveal it. */
export const maskPhone = (phone: string): string => `…${phone.slice(-4)}`
